/*
 * host calls sokod's plugin DLL as a Sokoban GUI does: LoadLibrary, the
 * exports looked up by name, SolveEx and Solve on a few levels (each
 * solution replayed here), the callback during a long solve, Terminate from
 * a second thread, and bad input. It prints one line per check and exits
 * with the number of checks that failed.
 *
 * Usage: host DLL            every check above
 *        host DLL badconfig  only that a solve under a bad sokod-plugin.ini
 *                            returns 6
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dll/sokodplugin.h"

static int failures;

static void check(BOOL ok, const char *what, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail[0] ? ": " : "", detail);
	fflush(stdout);
	if (!ok)
		failures++;
}

/* A level as rows; board() lays it out as width x height characters. */
struct level {
	const char *name;
	const char *rows[20];
};

static const struct level example = {"example", {
	"#######",
	"#  .  #",
	"# $$@ #",
	"#  .  #",
	"#######",
}};

/* Floor written '-' and '_', and a last row shorter than the others. */
static const struct level dashes = {"dashes", {
	"--#####",
	"--#@__#",
	"###-$-#",
	"#.__-##",
	"######",
}};

/* The box stands in a corner: proved unsolvable. */
static const struct level corner = {"corner", {
	"#####",
	"#$ .#",
	"# @ #",
	"#####",
}};

/* XSokoban 4: far more than a few seconds under objective pushes with the
 * simple bound and no planners, which the test's ini sets. */
static const struct level long_level = {"xsokoban 4", {
	"           ########",
	"           #  ....#",
	"############  ....#",
	"#    #  $ $   ....#",
	"# $$$#$  $ #  ....#",
	"#  $     $ #  ....#",
	"# $$ #$ $ $########",
	"#  $ #     #",
	"## #########",
	"#    #    ##",
	"#     $   ##",
	"#  $$#$$  @#",
	"#    #    ##",
	"###########",
}};

/* board lays l out row by row, rows padded with spaces; the caller frees. */
static char *board(const struct level *l, unsigned *width, unsigned *height)
{
	unsigned w = 0, h = 0, y;
	char *b;
	for (h = 0; l->rows[h] != NULL; h++)
		if (strlen(l->rows[h]) > w)
			w = (unsigned)strlen(l->rows[h]);
	b = malloc(w * h + 1);
	memset(b, ' ', w * h);
	b[w * h] = 0;
	for (y = 0; y < h; y++)
		memcpy(b + y * w, l->rows[y], strlen(l->rows[y]));
	*width = w;
	*height = h;
	return b;
}

/* solves replays the LURD solution on the board and reports whether every
 * step is legal and written in the right case, and every box ends on a
 * goal. */
static BOOL solves(const char *flat, unsigned w, unsigned h, const char *lurd, char *why, size_t whysize)
{
	char *b = strdup(flat);
	int p = -1, i, ok = TRUE;
	const char *s;
	for (i = 0; i < (int)(w * h); i++) {
		if (b[i] == '-' || b[i] == '_')
			b[i] = ' ';
		if (b[i] == '@' || b[i] == '+')
			p = i;
	}
	for (s = lurd; *s && ok; s++) {
		int d, next, beyond, push;
		switch (*s | 0x20) {
		case 'l': d = -1; break;
		case 'r': d = 1; break;
		case 'u': d = -(int)w; break;
		case 'd': d = (int)w; break;
		default:
			snprintf(why, whysize, "'%c' is not a step", *s);
			ok = FALSE;
			continue;
		}
		next = p + d;
		push = b[next] == '$' || b[next] == '*';
		beyond = next + d;
		if (b[next] == '#' || push != (*s >= 'A' && *s <= 'Z') ||
		    (push && (b[beyond] == '#' || b[beyond] == '$' || b[beyond] == '*'))) {
			snprintf(why, whysize, "step %d '%c' is illegal", (int)(s - lurd) + 1, *s);
			ok = FALSE;
			continue;
		}
		if (push) {
			b[beyond] = b[beyond] == '.' ? '*' : '$';
			b[next] = b[next] == '*' ? '.' : ' ';
		}
		b[p] = b[p] == '+' ? '.' : ' ';
		b[next] = b[next] == '.' ? '+' : '@';
		p = next;
	}
	if (ok && strchr(b, '$') != NULL) {
		snprintf(why, whysize, "a box is off its goal at the end");
		ok = FALSE;
	}
	free(b);
	return ok;
}

static struct {
	GETPLUGINNAME *GetPluginName, *GetSolverName;
	GETCONSTRAINTS *GetConstraints;
	SOLVEEX *SolveEx;
	SOLVE *Solve;
	TERMINATE *Terminate;
	CONFIGURE *Configure;
	SHOWABOUT *ShowAbout;
	ISSUPPORTEDOPTIMIZATION *IsSupportedOptimization;
} plugin;

static struct PluginStatus status;
static int callbacks;      /* calls of the callback */
static char lastText[256]; /* the status text of the last call */
static int stopAfter;      /* the callback asks to stop on this call; 0 never */

static int __stdcall callback(void)
{
	callbacks++;
	memcpy(lastText, status.szStatusText, sizeof lastText);
	lastText[sizeof lastText - 1] = 0;
	return stopAfter > 0 && callbacks >= stopAfter;
}

static int solveEx(unsigned w, unsigned h, char *b, char *sol, unsigned size)
{
	memset(&status, 0, sizeof status);
	status.uiSize = sizeof status;
	callbacks = 0;
	lastText[0] = 0;
	return plugin.SolveEx(w, h, b, sol, size, &status, callback);
}

static char solution[1 << 20];

/* solveLevel solves l with SolveEx and checks the solution. */
static void solveLevel(const struct level *l)
{
	unsigned w, h;
	char *b = board(l, &w, &h), what[64], detail[512] = "", why[128] = "";
	int rc = solveEx(w, h, b, solution, sizeof solution);
	BOOL ok = rc == SOKOBAN_PLUGIN_RESULT_OK && (status.uiFlags & SOKOBAN_PLUGIN_FLAG_SOLUTION) &&
	          solves(b, w, h, solution, why, sizeof why);
	snprintf(what, sizeof what, "SolveEx %s", l->name);
	snprintf(detail, sizeof detail, "return %d, flags %u, \"%s\" %s; %s", rc, status.uiFlags, solution, why,
	         status.szStatusText);
	check(ok, what, detail);
	free(b);
}

struct terminator {
	DWORD delay;   /* ms before Terminate */
	DWORD called;  /* GetTickCount when it was called */
	int result;    /* Terminate's return */
};

static DWORD WINAPI terminateLater(LPVOID arg)
{
	struct terminator *t = arg;
	Sleep(t->delay);
	t->called = GetTickCount();
	t->result = plugin.Terminate();
	return 0;
}

int main(int argc, char **argv)
{
	HMODULE dll;
	char name[64] = "", detail[512];
	unsigned w, h, mw = 0, mh = 0, mb = 99;
	char *b;
	int rc;

	if (argc != 2 && (argc != 3 || strcmp(argv[2], "badconfig") != 0)) {
		fprintf(stderr, "usage: host DLL [badconfig]\n");
		return 100;
	}
	dll = LoadLibraryA(argv[1]);
	if (dll == NULL) {
		printf("FAIL LoadLibrary %s: error %lu\n", argv[1], (unsigned long)GetLastError());
		return 100;
	}
#define RESOLVE(f) (plugin.f = (void *)GetProcAddress(dll, #f), check(plugin.f != NULL, "export " #f, ""))
	RESOLVE(GetPluginName);
	RESOLVE(GetSolverName);
	RESOLVE(GetConstraints);
	RESOLVE(SolveEx);
	RESOLVE(Solve);
	RESOLVE(Terminate);
	RESOLVE(Configure);
	RESOLVE(ShowAbout);
	RESOLVE(IsSupportedOptimization);
	if (failures > 0)
		return failures;

	if (argc == 3) {
		b = board(&example, &w, &h);
		rc = solveEx(w, h, b, solution, sizeof solution);
		snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID_CONFIGURATION, "a bad sokod-plugin.ini: 6", detail);
		free(b);
		return failures;
	}

	plugin.GetPluginName(name, sizeof name);
	check(strncmp(name, "sokod solver", 12) == 0, "GetPluginName", name);
	name[0] = 0;
	plugin.GetSolverName(name, 6);
	check(strcmp(name, "sokod") == 0, "GetSolverName truncates to its buffer", name);
	plugin.GetPluginName(NULL, 10);
	plugin.GetConstraints(&mw, &mh, &mb);
	snprintf(detail, sizeof detail, "%u x %u, %u boxes", mw, mh, mb);
	check(mw == 128 && mh == 128 && mb == 0, "GetConstraints", detail);
	check(plugin.IsSupportedOptimization(SOKOBAN_PLUGIN_FLAG_MOVES) == 0, "IsSupportedOptimization says no", "");

	solveLevel(&example);
	solveLevel(&dashes);

	/* The legacy Solve takes row pointers; a short row is padded with floor. */
	{
		const struct level *l = &dashes;
		char *rows[20], why[128] = "";
		int y;
		b = board(l, &w, &h);
		for (y = 0; l->rows[y] != NULL; y++)
			rows[y] = (char *)l->rows[y];
		rc = plugin.Solve(w, h, rows, solution, sizeof solution);
		snprintf(detail, sizeof detail, "return %d, \"%s\"", rc, solution);
		check(rc == SOKOBAN_PLUGIN_RESULT_OK && solves(b, w, h, solution, why, sizeof why), "Solve (legacy, row pointers)", detail);
		free(b);
	}

	b = board(&corner, &w, &h);
	rc = solveEx(w, h, b, solution, sizeof solution);
	snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
	check(rc == SOKOBAN_PLUGIN_RESULT_IMPOSSIBLE, "SolveEx proves a level unsolvable (3)", detail);
	free(b);

	/* A long solve: the callback sees status text; Terminate from another
	 * thread ends it with 9 within a second. */
	{
		struct terminator t = {3000, 0, -1};
		HANDLE th;
		DWORD back;
		b = board(&long_level, &w, &h);
		th = CreateThread(NULL, 0, terminateLater, &t, 0, NULL);
		rc = solveEx(w, h, b, solution, sizeof solution);
		back = GetTickCount();
		WaitForSingleObject(th, INFINITE);
		CloseHandle(th);
		snprintf(detail, sizeof detail, "%d calls, last text \"%s\"", callbacks, lastText);
		check(callbacks > 0 && strstr(lastText, "nodes") != NULL, "the callback is called with status text", detail);
		snprintf(detail, sizeof detail, "return %d, Terminate returned %d, SolveEx returned %lu ms after it", rc, t.result,
		         (unsigned long)(back - t.called));
		check(rc == SOKOBAN_PLUGIN_RESULT_TERMINATED_BY_USER && t.result == 0 && t.called != 0 && back - t.called < 1000,
		      "Terminate from another thread stops the solve (9 within a second)", detail);

		/* A callback that returns non-zero stops the solve too. */
		stopAfter = 2;
		rc = solveEx(w, h, b, solution, sizeof solution);
		stopAfter = 0;
		snprintf(detail, sizeof detail, "return %d after %d calls", rc, callbacks);
		check(rc == SOKOBAN_PLUGIN_RESULT_TERMINATED_BY_USER && callbacks == 2, "a callback returning non-zero stops the solve", detail);
		free(b);
	}

	/* Bad input gets a return code. */
	{
		static char bad[] = "#####"
		                    "#@$X#"
		                    "#####";
		static char noPlayer[] = "#####"
		                         "#$ .#"
		                         "#   #"
		                         "#####";
		static char sevenByTwo[] = "#######"
		                           "#@$.  #";
		unsigned ew, eh;
		char *eb = board(&example, &ew, &eh);
		char small[5];

		rc = solveEx(5, 3, bad, solution, sizeof solution);
		snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID, "a character outside XSB: 2", detail);
		rc = solveEx(7, 3, sevenByTwo, solution, sizeof solution);
		snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID, "width x height longer than the board: 2", detail);
		rc = solveEx(ew - 1, eh, eb, solution, sizeof solution);
		snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID, "width x height shorter than the board: 2", detail);
		rc = solveEx(5, 4, noPlayer, solution, sizeof solution);
		snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID && strstr(status.szStatusText, "player") != NULL,
		      "XSB characters but no player: 2, saying why", detail);
		rc = solveEx(ew, eh, NULL, solution, sizeof solution);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID, "a NULL board: 2", "");
		rc = plugin.Solve(ew, eh, NULL, solution, sizeof solution);
		check(rc == SOKOBAN_PLUGIN_RESULT_INVALID, "Solve with NULL rows: 2", "");
		rc = solveEx(ew, eh, eb, NULL, 100);
		check(rc == SOKOBAN_PLUGIN_RESULT_GAME_TOO_LONG, "a NULL solution buffer: 5", "");
		rc = solveEx(ew, eh, eb, solution, 0);
		check(rc == SOKOBAN_PLUGIN_RESULT_GAME_TOO_LONG, "a solution buffer of 0 bytes: 5", "");
		memset(small, 'x', sizeof small);
		rc = solveEx(ew, eh, eb, small, sizeof small);
		snprintf(detail, sizeof detail, "return %d; %s", rc, status.szStatusText);
		check(rc == SOKOBAN_PLUGIN_RESULT_GAME_TOO_LONG && small[0] == 0, "a too small solution buffer: 5, the buffer empty", detail);
		rc = plugin.SolveEx(ew, eh, eb, solution, sizeof solution, NULL, NULL);
		check(rc == SOKOBAN_PLUGIN_RESULT_OK, "SolveEx without status and callback", "");
		rc = solveEx(200, 1, eb, solution, sizeof solution);
		check(rc == SOKOBAN_PLUGIN_RESULT_CONSTRAINTS_VIOLATED, "a board wider than 128: 1", "");
		free(eb);
	}

	printf("%d check(s) failed\n", failures);
	FreeLibrary(dll);
	return failures;
}
