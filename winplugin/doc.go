// Package winplugin holds, in C, sokod's classic solver-plugin DLL for
// Windows Sokoban GUIs (dll/sokodplugin.c, its interface in
// dll/sokodplugin.h) and the host program that tests it as a GUI calls it
// (testhost/host.c). scripts/build-windows builds the DLLs with mingw-w64
// into the Windows release folder, beside sokod.exe; this package's test
// builds that folder and runs the host under wine64.
package winplugin
