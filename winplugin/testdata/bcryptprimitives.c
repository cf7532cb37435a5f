/*
 * bcryptprimitives.dll for wine versions that lack it (Debian 12's wine 8.0
 * does): the Go runtime of sokod.exe needs its ProcessPrng, which Windows
 * has had since Windows 10. The plugin test installs this DLL into its wine
 * prefix only when wine has none; it is never part of the release.
 */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
