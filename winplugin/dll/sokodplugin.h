/*
 * The classic Sokoban solver-plugin interface, as Sokoban YASC and
 * Sokoban++ call it: stdcall functions looked up by name, structures packed
 * to 1 byte. This file declares what sokod's plugin DLL exports and what
 * its test host calls; it is written from the interface's published
 * description (the plugin SDK's C header and YASC's Pascal declarations),
 * not copied from either.
 */
#ifndef SOKODPLUGIN_H
#define SOKODPLUGIN_H

#include <windows.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of SolveEx and Solve. */
enum {
	SOKOBAN_PLUGIN_RESULT_OK = 0,
	SOKOBAN_PLUGIN_RESULT_CONSTRAINTS_VIOLATED = 1, /* board larger than GetConstraints allows */
	SOKOBAN_PLUGIN_RESULT_INVALID = 2,              /* not a valid level */
	SOKOBAN_PLUGIN_RESULT_IMPOSSIBLE = 3,           /* proved unsolvable */
	SOKOBAN_PLUGIN_RESULT_GIVE_UP = 4,              /* a budget other than time ran out */
	SOKOBAN_PLUGIN_RESULT_GAME_TOO_LONG = 5,        /* the solution does not fit the buffer */
	SOKOBAN_PLUGIN_RESULT_INVALID_CONFIGURATION = 6,
	SOKOBAN_PLUGIN_RESULT_FAILURE = 7,
	SOKOBAN_PLUGIN_RESULT_TIMEOUT = 8,
	SOKOBAN_PLUGIN_RESULT_TERMINATED_BY_USER = 9
};

/*
 * Flags of PluginStatus.uiFlags. The two published declarations agree up
 * to PUSHING_SESSIONS (32) and differ above it: the plugin SDK's C header
 * has SECONDARY_MOVES 64, SECONDARY_PUSHES 128 and so on, while YASC's
 * Pascal unit inserts PLAYER_LINES 64 and shifts every secondary flag one
 * bit up (SECONDARY_MOVES 128). Which one a GUI reads: YASC reads uiFlags
 * only from optimizer plugins (the optimization the plugin actually ran);
 * from a solver it takes the return code and the moves, which it replays
 * and measures itself, and in the callback the counters, the status text
 * and the time. sokod is a solver and sets only SOLUTION and PUSHES (a
 * push-optimal solution), values both declarations share, so either
 * reading of the higher bits is unaffected.
 */
enum {
	SOKOBAN_PLUGIN_FLAG_NONE = 0,
	SOKOBAN_PLUGIN_FLAG_SOLUTION = 1,
	SOKOBAN_PLUGIN_FLAG_MOVES = 2,
	SOKOBAN_PLUGIN_FLAG_PUSHES = 4,
	SOKOBAN_PLUGIN_FLAG_BOX_LINES = 8,
	SOKOBAN_PLUGIN_FLAG_BOX_CHANGES = 16,
	SOKOBAN_PLUGIN_FLAG_PUSHING_SESSIONS = 32
};

#define SOKOBAN_PLUGIN_STATUS_TEXT_SIZE 256

#pragma pack(push, 1)
/* PluginStatus is SolveEx's status: the host sets uiSize to
 * sizeof(struct PluginStatus); the plugin fills in the rest before each
 * callback and before it returns. */
struct PluginStatus {
	unsigned int uiSize;
	unsigned int uiFlags;
	__int64 i64MovesGenerated;
	__int64 i64PushesGenerated;
	__int64 i64StatesGenerated;
	char szStatusText[SOKOBAN_PLUGIN_STATUS_TEXT_SIZE];
	unsigned int uiPluginTimeMS;
};
#pragma pack(pop)

/* PLUGINCALLBACK is the host's function the plugin calls with fresh status;
 * a non-zero return asks the plugin to stop. */
typedef int __stdcall PLUGINCALLBACK(void);

typedef void __stdcall GETPLUGINNAME(char *name, unsigned int size);
typedef void __stdcall GETCONSTRAINTS(unsigned int *maxWidth, unsigned int *maxHeight, unsigned int *maxBoxes);
typedef int __stdcall SOLVEEX(unsigned int width, unsigned int height, char *board, char *solution,
                              unsigned int solutionSize, struct PluginStatus *status, PLUGINCALLBACK *callback);
/* The legacy Solve takes the board as a vector of row pointers (C char**,
 * YASC's PTPCharVector); a row may end early with a NUL, the rest of it is
 * floor. */
typedef int __stdcall SOLVE(unsigned int width, unsigned int height, char **rows, char *solution,
                            unsigned int solutionSize);
typedef int __stdcall TERMINATE(void);
typedef void __stdcall CONFIGURE(HWND parent);
typedef void __stdcall SHOWABOUT(HWND parent);
typedef int __stdcall ISSUPPORTEDOPTIMIZATION(unsigned int optimization);

#ifdef __cplusplus
}
#endif

#endif
