/*
 * sokod's classic solver-plugin DLL for Windows Sokoban GUIs (Sokoban YASC,
 * Sokoban++ and others that load solver plugins).
 *
 * The DLL does no searching. SolveEx writes the board to a temporary level
 * file and runs sokod.exe, which sits beside the DLL, as a child process:
 * "sokod.exe solve FILE --events" plus the flags of sokod-plugin.ini (also
 * beside the DLL). sokod prints a JSON line of progress about four times a
 * second, which becomes the host's status and callback, and a last JSON line
 * with the result, which becomes the return code and the solution. With
 * remote= set in the ini file the child solves on a running sokod daemon.
 * Terminate, or a callback that returns non-zero, kills the child (a remote
 * job is cancelled when its stream closes). The child is in a job object
 * that kills it if the host dies.
 *
 * The interface has no handle for a solve in progress (Terminate takes no
 * argument), so the running child is kept in this file's globals, guarded
 * by a critical section; one solve runs at a time.
 */
#define WIN32_LEAN_AND_MEAN
#define JSMN_STATIC
#include <windows.h>
#include <shellapi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <jsmn.h> /* Debian's libjsmn-dev, header only */

#include "sokodplugin.h"

#ifndef SOKOD_VERSION
#define SOKOD_VERSION "dev"
#endif

#define EXPORT __declspec(dllexport)

/* The largest board sokod reads: sokoban.MaxWidth and MaxHeight. */
#define MAX_SIDE 128

#define EXE_NAME L"sokod.exe"
#define INI_NAME L"sokod-plugin.ini"
#define INI_SECTION L"sokod"
#define DEFAULT_INI_RESOURCE 1 /* RCDATA id of the default ini, see sokodplugin.rc */

/* sokod's exit codes (cmd/sokod/exit.go). */
enum {
	SOKOD_EXIT_OK = 0,
	SOKOD_EXIT_USAGE = 2,
	SOKOD_EXIT_BAD_INPUT = 3,
	SOKOD_EXIT_UNSOLVABLE = 5,
	SOKOD_EXIT_GAVE_UP = 6,
	SOKOD_EXIT_INTERRUPTED = 130
};

static HMODULE self;
static CRITICAL_SECTION lock;
static BOOL busy;         /* a solve is running */
static HANDLE child;      /* its sokod process, once started */
static BOOL terminating;  /* Terminate was called during it */

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
	(void)reserved;
	switch (reason) {
	case DLL_PROCESS_ATTACH:
		self = instance;
		InitializeCriticalSection(&lock);
		DisableThreadLibraryCalls(instance);
		break;
	case DLL_PROCESS_DETACH:
		DeleteCriticalSection(&lock);
		break;
	}
	return TRUE;
}

/* status reports whether st may be written: a host that passes a status
 * sets uiSize to the size it allocated. */
static BOOL status_ok(const struct PluginStatus *st)
{
	return st != NULL && st->uiSize >= sizeof *st;
}

/* say writes the status text, truncated to fit. */
static void say(struct PluginStatus *st, const char *format, ...)
{
	va_list ap;
	if (!status_ok(st))
		return;
	va_start(ap, format);
	vsnprintf(st->szStatusText, sizeof st->szStatusText, format, ap);
	va_end(ap);
}

/* fail sets the status text and returns code. */
static int fail(struct PluginStatus *st, int code, const char *text)
{
	say(st, "%s", text);
	return code;
}

/* dll_dir writes the directory of this DLL, without a trailing backslash. */
static BOOL dll_dir(wchar_t *dir, DWORD size)
{
	DWORD n = GetModuleFileNameW(self, dir, size);
	wchar_t *slash;
	if (n == 0 || n >= size)
		return FALSE;
	slash = wcsrchr(dir, L'\\');
	if (slash == NULL)
		return FALSE;
	*slash = 0;
	return TRUE;
}

/* A wide string being built, never longer than its fixed capacity. */
struct wbuf {
	wchar_t s[32768]; /* CreateProcess's limit on a command line */
	size_t n;
	BOOL overflow;
};

static void wput(struct wbuf *b, const wchar_t *s, size_t n)
{
	if (b->n + n >= sizeof b->s / sizeof b->s[0]) {
		b->overflow = TRUE;
		return;
	}
	memcpy(b->s + b->n, s, n * sizeof *s);
	b->n += n;
	b->s[b->n] = 0;
}

/* warg appends one argument quoted as CommandLineToArgvW and the C runtime
 * read it back: in double quotes, a quote escaped, backslashes doubled
 * before a quote. */
static void warg(struct wbuf *b, const wchar_t *arg)
{
	const wchar_t *p;
	if (b->n > 0)
		wput(b, L" ", 1);
	wput(b, L"\"", 1);
	for (p = arg;; p++) {
		size_t slashes = 0;
		while (*p == L'\\') {
			p++;
			slashes++;
		}
		if (*p == 0) {
			while (slashes-- > 0)
				wput(b, L"\\\\", 2);
			break;
		}
		if (*p == L'"') {
			while (slashes-- > 0)
				wput(b, L"\\\\", 2);
			wput(b, L"\\\"", 2);
			continue;
		}
		while (slashes-- > 0)
			wput(b, L"\\", 1);
		wput(b, p, 1);
	}
	wput(b, L"\"", 1);
}

/* The ini keys passed to sokod as flags. Relative paths in them are
 * relative to the DLL's directory, sokod's working directory. */
static const struct {
	const wchar_t *key, *flag;
} settings[] = {
	{L"time", L"--time"},
	{L"memory", L"--memory"},
	{L"objective", L"--objective"},
	{L"heuristic", L"--heuristic"},
	{L"planners", L"--planners"},
	{L"remote", L"--remote"},
	{L"config", L"--config"},
};

/* write_file writes n bytes to a new file at path. */
static BOOL write_file(const wchar_t *path, const char *data, DWORD n)
{
	DWORD done = 0;
	BOOL ok;
	HANDLE f = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return FALSE;
	ok = WriteFile(f, data, n, &done, NULL) && done == n;
	return CloseHandle(f) && ok;
}

/* A JSON line of sokod's events and its jsmn tokens. */
struct json {
	const char *s;
	jsmntok_t *t;
	int n;
};

static BOOL json_parse(struct json *j, const char *s, size_t len)
{
	jsmn_parser p;
	int n;
	jsmn_init(&p);
	n = jsmn_parse(&p, s, len, NULL, 0);
	if (n < 1)
		return FALSE;
	j->t = malloc((size_t)n * sizeof *j->t);
	if (j->t == NULL)
		return FALSE;
	jsmn_init(&p);
	if (jsmn_parse(&p, s, len, j->t, (unsigned)n) != n || j->t[0].type != JSMN_OBJECT) {
		free(j->t);
		return FALSE;
	}
	j->s = s;
	j->n = n;
	return TRUE;
}

/* json_skip returns the index of the token after token i and all inside it. */
static int json_skip(const struct json *j, int i)
{
	int end = j->t[i].end;
	for (i++; i < j->n && j->t[i].start < end; i++)
		;
	return i;
}

/* json_field returns the token of the value of the object's key, or -1. */
static int json_field(const struct json *j, const char *key)
{
	size_t klen = strlen(key);
	int i = 1;
	while (i + 1 < j->n) {
		const jsmntok_t *k = &j->t[i];
		if (k->type == JSMN_STRING && (size_t)(k->end - k->start) == klen && memcmp(j->s + k->start, key, klen) == 0)
			return i + 1;
		i = json_skip(j, i + 1);
	}
	return -1;
}

/* json_string copies the string value of key, unescaped, to out (size
 * bytes with the NUL); characters beyond ASCII become '?'. It returns the
 * length the whole value needs, or -1 when key is not a string. */
static long json_string(const struct json *j, const char *key, char *out, size_t size)
{
	int i = json_field(j, key);
	const char *p, *end;
	size_t n = 0;
	if (i < 0 || j->t[i].type != JSMN_STRING)
		return -1;
	for (p = j->s + j->t[i].start, end = j->s + j->t[i].end; p < end; p++) {
		char c = *p;
		if (c == '\\' && p + 1 < end) {
			switch (*++p) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': c = '?'; p += (end - p > 4) ? 4 : end - p - 1; break;
			default: c = *p; /* \" \\ \/ */
			}
		} else if ((unsigned char)c >= 0x80) {
			c = '?';
			while (p + 1 < end && ((unsigned char)p[1] & 0xC0) == 0x80)
				p++;
		}
		if (out != NULL && n + 1 < size)
			out[n] = c;
		n++;
	}
	if (out != NULL && size > 0)
		out[n < size ? n : size - 1] = 0;
	return (long)n;
}

/* json_int returns the integer value of key, or 0. */
static long long json_int(const struct json *j, const char *key)
{
	char buf[32];
	int i = json_field(j, key);
	int len;
	if (i < 0 || j->t[i].type != JSMN_PRIMITIVE)
		return 0;
	len = j->t[i].end - j->t[i].start;
	if (len <= 0 || len >= (int)sizeof buf)
		return 0;
	memcpy(buf, j->s + j->t[i].start, (size_t)len);
	buf[len] = 0;
	return strtoll(buf, NULL, 10);
}

/* json_true reports whether key is true. */
static BOOL json_true(const struct json *j, const char *key)
{
	int i = json_field(j, key);
	return i >= 0 && j->t[i].type == JSMN_PRIMITIVE && j->s[j->t[i].start] == 't';
}

/* A solve's child process and what it has said. */
struct run {
	struct PluginStatus *st;
	PLUGINCALLBACK *callback;
	BOOL stopped;  /* the callback asked to stop */
	char *result;  /* the result line, malloc'd */
};

/* kill ends the child, if one runs. */
static void kill_child(void)
{
	EnterCriticalSection(&lock);
	if (child != NULL)
		TerminateProcess(child, SOKOD_EXIT_INTERRUPTED);
	LeaveCriticalSection(&lock);
}

/* on_line handles one line of the child's output. */
static void on_line(struct run *r, char *line, size_t len)
{
	struct json j;
	char event[16];
	if (!json_parse(&j, line, len))
		return;
	json_string(&j, "event", event, sizeof event);
	if (strcmp(event, "progress") == 0) {
		if (status_ok(r->st)) {
			r->st->i64StatesGenerated = json_int(&j, "nodes");
			r->st->uiPluginTimeMS = (unsigned int)json_int(&j, "elapsed_ms");
			json_string(&j, "text", r->st->szStatusText, sizeof r->st->szStatusText);
		}
		if (r->callback != NULL && !r->stopped && r->callback() != 0) {
			r->stopped = TRUE;
			kill_child();
		}
	} else if (strcmp(event, "result") == 0) {
		free(r->result);
		r->result = malloc(len + 1);
		if (r->result != NULL) {
			memcpy(r->result, line, len);
			r->result[len] = 0;
		}
	}
	free(j.t);
}

/* read_lines reads the child's output to its end, line by line. */
static void read_lines(struct run *r, HANDLE out)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	if (buf == NULL)
		return;
	for (;;) {
		DWORD got = 0;
		char *nl;
		if (len == cap) {
			char *bigger = realloc(buf, cap * 2);
			if (bigger == NULL)
				break;
			buf = bigger;
			cap *= 2;
		}
		if (!ReadFile(out, buf + len, (DWORD)(cap - len), &got, NULL) || got == 0)
			break;
		len += got;
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			size_t n = (size_t)(nl - buf);
			on_line(r, buf, n);
			memmove(buf, nl + 1, len - n - 1);
			len -= n + 1;
		}
	}
	free(buf);
}

/* first_line copies the first line of the file f (the child's standard
 * error) to out. */
static void first_line(HANDLE f, char *out, size_t size)
{
	DWORD got = 0;
	char *nl;
	out[0] = 0;
	if (SetFilePointer(f, 0, NULL, FILE_BEGIN) == INVALID_SET_FILE_POINTER)
		return;
	if (!ReadFile(f, out, (DWORD)size - 1, &got, NULL))
		got = 0;
	out[got] = 0;
	if ((nl = strpbrk(out, "\r\n")) != NULL)
		*nl = 0;
}

/* begin claims the one solve slot. */
static BOOL begin(void)
{
	BOOL ok;
	EnterCriticalSection(&lock);
	ok = !busy;
	if (ok) {
		busy = TRUE;
		terminating = FALSE;
	}
	LeaveCriticalSection(&lock);
	return ok;
}

static void end(void)
{
	EnterCriticalSection(&lock);
	busy = FALSE;
	child = NULL;
	LeaveCriticalSection(&lock);
}

/* command builds sokod's command line for the level file. */
static BOOL command(struct wbuf *cmd, const wchar_t *dir, const wchar_t *level)
{
	wchar_t path[MAX_PATH + 32], value[1024];
	size_t i;
	_snwprintf(path, MAX_PATH + 32, L"%ls\\%ls", dir, EXE_NAME);
	path[MAX_PATH + 31] = 0;
	warg(cmd, path);
	warg(cmd, L"solve");
	warg(cmd, level);
	warg(cmd, L"--events");
	_snwprintf(path, MAX_PATH + 32, L"%ls\\%ls", dir, INI_NAME);
	path[MAX_PATH + 31] = 0;
	for (i = 0; i < sizeof settings / sizeof settings[0]; i++) {
		GetPrivateProfileStringW(INI_SECTION, settings[i].key, L"", value, 1024, path);
		if (value[0] != 0) {
			warg(cmd, settings[i].flag);
			warg(cmd, value);
		}
	}
	return !cmd->overflow;
}

/* outcome maps sokod's exit code and result line to a return code, and
 * copies the solution. */
static int outcome(struct run *r, DWORD code, const char *errline, char *solution, unsigned int size)
{
	struct json j;
	char status[32] = "", reason[200] = "", found[64] = "";
	int rc;
	if (terminating || r->stopped)
		return fail(r->st, SOKOBAN_PLUGIN_RESULT_TERMINATED_BY_USER, "terminated");
	switch (code) {
	case SOKOD_EXIT_BAD_INPUT:
		say(r->st, "invalid level: %s", errline);
		return SOKOBAN_PLUGIN_RESULT_INVALID;
	case SOKOD_EXIT_USAGE:
		say(r->st, "invalid configuration (%ls): %s", INI_NAME, errline);
		return SOKOBAN_PLUGIN_RESULT_INVALID_CONFIGURATION;
	case SOKOD_EXIT_INTERRUPTED:
		return fail(r->st, SOKOBAN_PLUGIN_RESULT_TERMINATED_BY_USER, "interrupted");
	case SOKOD_EXIT_OK:
	case SOKOD_EXIT_UNSOLVABLE:
	case SOKOD_EXIT_GAVE_UP:
		break;
	default:
		say(r->st, "sokod failed (exit code %lu): %s", (unsigned long)code, errline);
		return SOKOBAN_PLUGIN_RESULT_FAILURE;
	}
	if (r->result == NULL || !json_parse(&j, r->result, strlen(r->result)))
		return fail(r->st, SOKOBAN_PLUGIN_RESULT_FAILURE, "sokod gave no result");
	json_string(&j, "status", status, sizeof status);
	json_string(&j, "reason", reason, sizeof reason);
	json_string(&j, "found_by", found, sizeof found);
	if (strcmp(status, "solved") == 0 && code == SOKOD_EXIT_OK) {
		long need = json_string(&j, "solution", NULL, 0);
		if (need < 0) {
			rc = fail(r->st, SOKOBAN_PLUGIN_RESULT_FAILURE, "sokod's result has no solution");
		} else if ((unsigned long)need + 1 > size) {
			say(r->st, "the solution, %ld moves, does not fit the buffer of %u bytes", need, size);
			rc = SOKOBAN_PLUGIN_RESULT_GAME_TOO_LONG;
		} else {
			BOOL optimal = json_true(&j, "optimal");
			json_string(&j, "solution", solution, size);
			if (status_ok(r->st))
				r->st->uiFlags = SOKOBAN_PLUGIN_FLAG_SOLUTION | (optimal ? SOKOBAN_PLUGIN_FLAG_PUSHES : 0);
			say(r->st, "solved: %lld moves, %lld pushes%s, by %s", json_int(&j, "moves"), json_int(&j, "pushes"),
			    optimal ? ", push-optimal" : "", found);
			rc = SOKOBAN_PLUGIN_RESULT_OK;
		}
	} else if (strcmp(status, "unsolvable") == 0) {
		say(r->st, "unsolvable: %s", reason);
		rc = SOKOBAN_PLUGIN_RESULT_IMPOSSIBLE;
	} else if (strstr(reason, "time limit") != NULL) {
		/* engine.ReasonDeadline; a budget other than time is a give-up. */
		say(r->st, "time-out: %s", reason);
		rc = SOKOBAN_PLUGIN_RESULT_TIMEOUT;
	} else {
		say(r->st, "gave up: %s", reason);
		rc = SOKOBAN_PLUGIN_RESULT_GIVE_UP;
	}
	free(j.t);
	return rc;
}

/* run_sokod runs sokod on the level text and reads its events. */
static int run_sokod(const char *level, size_t len, char *solution, unsigned int size, struct PluginStatus *st,
                     PLUGINCALLBACK *callback)
{
	static struct wbuf cmd; /* large; guarded by the solve slot */
	wchar_t dir[MAX_PATH], tmpdir[MAX_PATH], levelpath[MAX_PATH], errpath[MAX_PATH], exe[MAX_PATH + 16];
	SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limit;
	HANDLE outr = NULL, outw = NULL, nul, errf, job;
	struct run r = {st, callback, FALSE, NULL};
	char errline[200];
	DWORD code = 0;
	int rc;

	if (!dll_dir(dir, MAX_PATH))
		return fail(st, SOKOBAN_PLUGIN_RESULT_FAILURE, "cannot find the DLL's directory");
	_snwprintf(exe, MAX_PATH + 16, L"%ls\\%ls", dir, EXE_NAME);
	exe[MAX_PATH + 15] = 0;
	if (GetFileAttributesW(exe) == INVALID_FILE_ATTRIBUTES)
		return fail(st, SOKOBAN_PLUGIN_RESULT_INVALID_CONFIGURATION, "sokod.exe is not beside the plugin DLL");
	if (!GetTempPathW(MAX_PATH, tmpdir) || !GetTempFileNameW(tmpdir, L"sok", 0, levelpath) ||
	    !GetTempFileNameW(tmpdir, L"sok", 0, errpath))
		return fail(st, SOKOBAN_PLUGIN_RESULT_FAILURE, "cannot create a temporary file");
	if (!write_file(levelpath, level, (DWORD)len)) {
		DeleteFileW(levelpath);
		DeleteFileW(errpath);
		return fail(st, SOKOBAN_PLUGIN_RESULT_FAILURE, "cannot write the level to a temporary file");
	}
	memset(&cmd, 0, sizeof cmd);
	if (!command(&cmd, dir, levelpath)) {
		DeleteFileW(levelpath);
		DeleteFileW(errpath);
		return fail(st, SOKOBAN_PLUGIN_RESULT_INVALID_CONFIGURATION, "the command line is too long");
	}
	/* sokod's standard error goes to a file that disappears with its last
	 * handle; its first line explains a failure. */
	errf = CreateFileW(errpath, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
	                   &inherit, CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, NULL);
	if (errf == INVALID_HANDLE_VALUE || nul == INVALID_HANDLE_VALUE || !CreatePipe(&outr, &outw, &inherit, 0) ||
	    !SetHandleInformation(outr, HANDLE_FLAG_INHERIT, 0)) {
		rc = fail(st, SOKOBAN_PLUGIN_RESULT_FAILURE, "cannot create the pipes to sokod");
		goto cleanup_handles;
	}
	memset(&si, 0, sizeof si);
	si.cb = sizeof si;
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = nul;
	si.hStdOutput = outw;
	si.hStdError = errf;
	if (!CreateProcessW(exe, cmd.s, NULL, NULL, TRUE, CREATE_NO_WINDOW | CREATE_SUSPENDED, NULL, dir, &si, &pi)) {
		say(st, "cannot start sokod.exe (error %lu)", (unsigned long)GetLastError());
		rc = SOKOBAN_PLUGIN_RESULT_FAILURE;
		goto cleanup_handles;
	}
	/* A job that kills sokod when the host process ends, however it ends. */
	job = CreateJobObjectW(NULL, NULL);
	if (job != NULL) {
		memset(&limit, 0, sizeof limit);
		limit.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
		if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limit, sizeof limit) ||
		    !AssignProcessToJobObject(job, pi.hProcess)) {
			CloseHandle(job);
			job = NULL;
		}
	}
	EnterCriticalSection(&lock);
	child = pi.hProcess;
	if (terminating)
		TerminateProcess(child, SOKOD_EXIT_INTERRUPTED);
	LeaveCriticalSection(&lock);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	CloseHandle(outw); /* the child holds the write end now; its exit ends our reads */
	outw = NULL;

	read_lines(&r, outr);
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	EnterCriticalSection(&lock);
	child = NULL;
	LeaveCriticalSection(&lock);
	CloseHandle(pi.hProcess);
	if (job != NULL)
		CloseHandle(job);
	first_line(errf, errline, sizeof errline);
	rc = outcome(&r, code, errline, solution, size);

cleanup_handles:
	free(r.result);
	if (outr != NULL)
		CloseHandle(outr);
	if (outw != NULL)
		CloseHandle(outw);
	if (nul != INVALID_HANDLE_VALUE)
		CloseHandle(nul);
	if (errf != INVALID_HANDLE_VALUE)
		CloseHandle(errf);
	DeleteFileW(levelpath);
	DeleteFileW(errpath);
	return rc;
}

/* solve checks the board and runs sokod on it. */
static int solve(unsigned int width, unsigned int height, const char *board, char *solution, unsigned int size,
                 struct PluginStatus *st, PLUGINCALLBACK *callback)
{
	size_t cells, i, k;
	char *text;
	DWORD start = GetTickCount();
	int rc;

	if (status_ok(st)) {
		unsigned int keep = st->uiSize;
		memset(st, 0, sizeof *st);
		st->uiSize = keep;
	}
	if (board == NULL || width == 0 || height == 0)
		return fail(st, SOKOBAN_PLUGIN_RESULT_INVALID, "no board");
	if (width > MAX_SIDE || height > MAX_SIDE)
		return fail(st, SOKOBAN_PLUGIN_RESULT_CONSTRAINTS_VIOLATED, "the board is larger than 128 x 128");
	if (solution == NULL || size == 0)
		return fail(st, SOKOBAN_PLUGIN_RESULT_GAME_TOO_LONG, "no room for a solution");
	solution[0] = 0;
	cells = (size_t)width * height;
	for (i = 0; i < cells; i++) {
		unsigned char c = (unsigned char)board[i];
		if (c == 0) {
			say(st, "the board has %lu characters, not width x height = %lu", (unsigned long)i, (unsigned long)cells);
			return SOKOBAN_PLUGIN_RESULT_INVALID;
		}
		if (strchr("#@+$*. -_", c) == NULL) {
			say(st, "character 0x%02x at column %lu, row %lu is not a Sokoban square", c,
			    (unsigned long)(i % width + 1), (unsigned long)(i / width + 1));
			return SOKOBAN_PLUGIN_RESULT_INVALID;
		}
	}
	if (board[cells] != 0)
		return fail(st, SOKOBAN_PLUGIN_RESULT_INVALID, "the board is longer than width x height");
	text = malloc(cells + height + 1);
	if (text == NULL)
		return fail(st, SOKOBAN_PLUGIN_RESULT_FAILURE, "out of memory");
	for (i = 0, k = 0; i < cells; i++) {
		text[k++] = board[i];
		if ((i + 1) % width == 0)
			text[k++] = '\n';
	}
	text[k] = 0;
	if (!begin()) {
		free(text);
		return fail(st, SOKOBAN_PLUGIN_RESULT_FAILURE, "another solve is running");
	}
	rc = run_sokod(text, k, solution, size, st, callback);
	end();
	free(text);
	if (status_ok(st))
		st->uiPluginTimeMS = GetTickCount() - start;
	return rc;
}

EXPORT int __stdcall SolveEx(unsigned int width, unsigned int height, char *board, char *solution,
                             unsigned int solutionSize, struct PluginStatus *status, PLUGINCALLBACK *callback)
{
	return solve(width, height, board, solution, solutionSize, status, callback);
}

EXPORT int __stdcall Solve(unsigned int width, unsigned int height, char **rows, char *solution,
                           unsigned int solutionSize)
{
	char *board;
	unsigned int x, y;
	int rc;
	if (rows == NULL || width == 0 || height == 0)
		return SOKOBAN_PLUGIN_RESULT_INVALID;
	if (width > MAX_SIDE || height > MAX_SIDE)
		return SOKOBAN_PLUGIN_RESULT_CONSTRAINTS_VIOLATED;
	board = malloc((size_t)width * height + 1);
	if (board == NULL)
		return SOKOBAN_PLUGIN_RESULT_FAILURE;
	for (y = 0; y < height; y++) {
		BOOL ended = rows[y] == NULL;
		if (ended) {
			free(board);
			return SOKOBAN_PLUGIN_RESULT_INVALID;
		}
		for (x = 0; x < width; x++) {
			char c = ended ? ' ' : rows[y][x];
			if (c == 0) { /* a short row: the rest is floor */
				ended = TRUE;
				c = ' ';
			}
			board[y * width + x] = c;
		}
	}
	board[width * height] = 0;
	rc = solve(width, height, board, solution, solutionSize, NULL, NULL);
	free(board);
	return rc;
}

EXPORT int __stdcall Terminate(void)
{
	EnterCriticalSection(&lock);
	if (busy) {
		terminating = TRUE;
		if (child != NULL)
			TerminateProcess(child, SOKOD_EXIT_INTERRUPTED);
	}
	LeaveCriticalSection(&lock);
	return SOKOBAN_PLUGIN_RESULT_OK;
}

EXPORT void __stdcall GetPluginName(char *name, unsigned int size)
{
	if (name != NULL && size > 0)
		snprintf(name, size, "sokod solver %s", SOKOD_VERSION);
}

EXPORT void __stdcall GetSolverName(char *name, unsigned int size)
{
	GetPluginName(name, size);
}

/* 0 boxes means no limit, as plugins commonly report it. */
EXPORT void __stdcall GetConstraints(unsigned int *maxWidth, unsigned int *maxHeight, unsigned int *maxBoxes)
{
	if (maxWidth != NULL)
		*maxWidth = MAX_SIDE;
	if (maxHeight != NULL)
		*maxHeight = MAX_SIDE;
	if (maxBoxes != NULL)
		*maxBoxes = 0;
}

/* sokod has no optimizer (yet): no optimization is supported. */
EXPORT int __stdcall IsSupportedOptimization(unsigned int optimization)
{
	(void)optimization;
	return 0;
}

/* Configure opens sokod-plugin.ini in Notepad, writing the default one
 * (built into the DLL) first when there is none. */
EXPORT void __stdcall Configure(HWND parent)
{
	wchar_t dir[MAX_PATH], path[MAX_PATH + 32], quoted[MAX_PATH + 40];
	if (!dll_dir(dir, MAX_PATH))
		return;
	_snwprintf(path, MAX_PATH + 32, L"%ls\\%ls", dir, INI_NAME);
	path[MAX_PATH + 31] = 0;
	if (GetFileAttributesW(path) == INVALID_FILE_ATTRIBUTES) {
		HRSRC res = FindResourceW(self, MAKEINTRESOURCEW(DEFAULT_INI_RESOURCE), MAKEINTRESOURCEW(10) /* RT_RCDATA */);
		HGLOBAL data = res != NULL ? LoadResource(self, res) : NULL;
		if (data == NULL || !write_file(path, LockResource(data), SizeofResource(self, res))) {
			MessageBoxW(parent, L"Cannot write " INI_NAME L" beside the plugin DLL.", L"sokod", MB_OK | MB_ICONERROR);
			return;
		}
	}
	_snwprintf(quoted, MAX_PATH + 40, L"\"%ls\"", path);
	quoted[MAX_PATH + 39] = 0;
	ShellExecuteW(parent, L"open", L"notepad.exe", quoted, dir, SW_SHOWNORMAL);
}

EXPORT void __stdcall ShowAbout(HWND parent)
{
	MessageBoxA(parent,
	            "sokod solver " SOKOD_VERSION "\n\n"
	            "A Sokoban solver: this plugin runs sokod.exe, beside it, on each level.\n"
	            "Settings (time, memory, objective, a daemon to solve on) are in sokod-plugin.ini.",
	            "About sokod", MB_OK | MB_ICONINFORMATION);
}
