/*
 * unwind-dwarf.c - unwinding a sampled stack copy with libdwfl
 * (unwind-dwarf.h).
 *
 * libdwfl unwinds a "thread" it is given through callbacks: the initial
 * registers, and a reader of memory.  Here the thread is one sample: its
 * registers, and memory that is the stack copy alone (every other read
 * fails, which ends the walk there).  The modules are reported to one Dwfl
 * per process at their runtime addresses; as libdwfl cannot be attached
 * twice, a change in the modules makes a new Dwfl at the next unwind.
 */
#include "unwind-dwarf.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct unwind_dwarf {
	pid_t pid;
	Dwfl *dwfl;
	bool stale; /* the modules changed since dwfl was made */
	bool failed;
	/* the sample being unwound */
	const uint64_t *regs;
	uint64_t sp;
	const uint8_t *stack;
	size_t len;
	uint64_t *ret;
	size_t n, max;
	bool first;
	bool outside; /* a read fell outside the copy: the walk ran out of it */
};

static char *debuginfo_path = NULL;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	struct unwind_dwarf *u = arg;
	if (*thread_arg)
		return 0;
	*thread_arg = u;
	return u->pid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct unwind_dwarf *u = arg;
	if (addr < u->sp || addr - u->sp > u->len || u->len - (addr - u->sp) < sizeof *result) {
		u->outside = true;
		return false;
	}
	memcpy(result, u->stack + (addr - u->sp), sizeof *result);
	return true;
}

static bool initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_dwarf *u = arg;
	Dwarf_Word r[UNWIND_DWARF_NREGS];
	for (int i = 0; i < UNWIND_DWARF_NREGS; i++)
		r[i] = u->regs[i];
	return dwfl_thread_state_registers(thread, 0, UNWIND_DWARF_NREGS, r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = initial_registers,
};

struct unwind_dwarf *unwind_dwarf_new(pid_t pid)
{
	struct unwind_dwarf *u = xcalloc(1, sizeof *u);
	u->pid = pid;
	u->stale = true;
	return u;
}

void unwind_dwarf_free(struct unwind_dwarf *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
}

void unwind_dwarf_modules_changed(struct unwind_dwarf *u)
{
	u->stale = true;
}

/* A Dwfl of proc's live modules at their runtime addresses. */
static void rebuild(struct unwind_dwarf *u, const struct pp_process *proc)
{
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->stale = false;
	u->failed = true;
	u->dwfl = dwfl_begin(&callbacks);
	if (!u->dwfl)
		return;
	dwfl_report_begin(u->dwfl);
	size_t reported = 0;
	char dir[64];
	proc_dir((int)u->pid, dir, sizeof dir);
	for (size_t i = 0; i < proc->nmodules; i++) {
		const struct pp_module *m = &proc->modules[i];
		if (m->epoch_unloaded || m->path[0] != '/')
			continue;
		char path[PATH_MAX + 64];
		snprintf(path, sizeof path, "%s/root%s", dir, m->path);
		const char *name = strrchr(m->path, '/') + 1;
		if (dwfl_report_elf(u->dwfl, name, path, -1, m->bias, false) ||
		    dwfl_report_elf(u->dwfl, name, m->path, -1, m->bias, false))
			reported++;
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (reported && dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_callbacks, u))
		u->failed = false;
}

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct unwind_dwarf *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->first) { /* the leaf: the sample's ip */
		u->first = false;
		return DWARF_CB_OK;
	}
	if (pc == 0 || u->n == u->max)
		return DWARF_CB_ABORT;
	u->ret[u->n++] = pc;
	return DWARF_CB_OK;
}

size_t unwind_dwarf(struct unwind_dwarf *u, const struct pp_process *proc,
		    const uint64_t regs[UNWIND_DWARF_NREGS], const uint8_t *stack, size_t len,
		    uint64_t *ret, size_t max, bool *complete)
{
	*complete = false;
	if (u->stale)
		rebuild(u, proc);
	if (u->failed)
		return 0;
	u->regs = regs;
	u->sp = regs[7];
	u->stack = stack;
	u->len = len;
	u->ret = ret;
	u->n = 0;
	u->max = max;
	u->first = true;
	u->outside = false;
	int r = dwfl_getthread_frames(u->dwfl, u->pid, on_frame, u);
	/* libdwfl ends a walk whose next frame it cannot read as it ends one
	 * at the outermost frame (0): a stack deeper than the copy is not
	 * complete, and must not look whole (its outer frames are missing). */
	*complete = r == 0 && !u->outside;
	return u->n;
}
