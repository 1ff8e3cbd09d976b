/*
 * t-raw-stacks - the stack trie of a recording (lib/record.c,
 * record-format.h), fed exactly through __profil_inject_stack: this
 * program runs itself with the PCPROF_* environment and
 * PROFIL_ENGINE=manual, the copy injects known stacks, and the recording is
 * read back here.  Each run is made twice: injected, and stored from the
 * thread's walk buffer as the handler stores a walk (lib/sig/sink.c, whose
 * memory of the thread's last stack gives the outer callers' nodes): the
 * same trie, node for node.
 *   - Sharing: stacks with the same outer callers share their nodes; the
 *     trie holds exactly one node per distinct (caller's node, pc); each
 *     slot names its innermost caller's node, PCPROF_RAW_ROOT for a stack
 *     of one frame and PCPROF_RAW_NO_STACK for __profil_inject; the same
 *     stack again adds to its slot; a caller 0 ends the stack as [unknown];
 *     a walk of 300 frames keeps 256.
 *   - Full (PCPROF_SLOTS=1024: 768 nodes): stacks of 100 callers each until
 *     the trie has no room; a stack that does not fit keeps its outermost
 *     callers, in order, and its slot is marked cut; stack_cut is the sum
 *     of the cut slots' ticks; a stack already in the trie still fits.
 *   - Off (no PCPROF_STACKS): the file has no node table and no slot a
 *     stack; bad arguments are refused with EINVAL.
 *   - A fork child stores the stack its parent last stored, from the walk
 *     buffer it inherited: its slot names nodes of its own recording,
 *     whole (the memory of the parent's stack names the parent's nodes).
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profil_ext.h"
#include "record-format.h"
#include "sig/sink.h"
#include "sig/tslot.h"
#include "helpers/scratch.h"
#include "test.h"

#define MAIN  0x4000u
#define DEPTH 100 /* callers of each stack in the "full" run */
#define NFULL 20  /* stacks injected in the "full" run */

/* ---- the copy that records ---- */

static bool walked; /* through the walk buffer, as the handler stores */

static void put(const uintptr_t *pcs, int n, unsigned ticks)
{
	if (!walked) {
		if (__profil_inject_stack(pcs, n, ticks) < 0)
			_exit(3);
		return;
	}
	struct profil_thread *t = profil__thread_self();
	struct profil_rec *r = atomic_load(&profil__rec);
	if (!t || !t->walk || !r)
		_exit(5);
	int keep = n < PROFIL_STACK_MAX ? n : PROFIL_STACK_MAX;
	memcpy(t->walk->pcs, pcs, (size_t)keep * sizeof pcs[0]);
	profil__record(r, profil__gettid(), pcs[0], t->walk->pcs, keep, ticks, true);
}

/* The parent stores a stack, its fork child the same one: the child's
 * pid in scratch/child. */
static int forked(void)
{
	walked = true;
	uintptr_t a[] = { 0x1000, 0x2000, 0x3000, MAIN };
	put(a, 4, 1);
	pid_t c = fork();
	if (c < 0)
		return 7;
	if (c == 0) {
		put(a, 4, 1);
		_exit(0);
	}
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 8;
	char path[128];
	snprintf(path, sizeof path, "%s/child", getenv("PCPROF_DIR"));
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)c) < 0 || fclose(f) != 0)
		return 9;
	return 0;
}

static void share(void)
{
	uintptr_t a[] = { 0x1000, 0x2000, 0x3000, MAIN };
	uintptr_t b[] = { 0x1100, 0x2100, 0x3000, MAIN };
	uintptr_t c[] = { 0x1200, MAIN, PCPROF_FRAME_UNKNOWN };
	uintptr_t d[] = { 0x1300 };
	uintptr_t f[] = { 0x1500, 0, MAIN };
	put(a, 4, 3);
	put(b, 4, 2);
	put(a, 4, 1);
	put(c, 3, 1);
	put(d, 1, 1);
	if (__profil_inject(0x1400, 1) < 0)
		_exit(3);
	put(f, 3, 1);
	static uintptr_t deep[300];
	deep[0] = 0x1600;
	for (int i = 1; i < 300; i++)
		deep[i] = 0x100000 + 16 * (uintptr_t)i;
	put(deep, 300, 1);
}

/* Stack i of the full run: leaf 0x1000 + 16 i, callers distinct to it,
 * then MAIN outermost. */
static void full_stack(int i, uintptr_t *pcs)
{
	pcs[0] = 0x1000 + 16 * (uintptr_t)i;
	for (int j = 1; j < DEPTH; j++)
		pcs[j] = 0x10000000 + ((uintptr_t)i << 20) + 16 * (uintptr_t)j;
	pcs[DEPTH] = MAIN;
}

static void full(void)
{
	uintptr_t pcs[DEPTH + 1];
	for (int i = 0; i < NFULL; i++) {
		full_stack(i, pcs);
		put(pcs, DEPTH + 1, 1 + (unsigned)i % 3);
	}
	full_stack(0, pcs);
	put(pcs, DEPTH + 1, 1);
}

static int off(void)
{
	uintptr_t a[] = { 0x1000, 0x2000, MAIN };
	put(a, 3, 1);
	errno = 0;
	if (__profil_inject_stack(NULL, 1, 1) != -1 || errno != EINVAL)
		return 4;
	errno = 0;
	if (__profil_inject_stack(a, 0, 1) != -1 || errno != EINVAL)
		return 4;
	return 0;
}

/* ---- reading it back ---- */

struct rec {
	struct pcprof_raw_header h;
	struct pcprof_raw_slot *slot;
	uint64_t nslot;
	struct pcprof_raw_node *node;
	uint64_t nnode;
};

static void read_at(int fd, void *buf, size_t n, uint64_t off)
{
	T_EQ(pread(fd, buf, n, (off_t)off), (long long)n);
}

static void read_recording(pid_t pid, struct rec *r)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%d.0.raw", scratch, (int)pid);
	int fd = open(path, O_RDONLY);
	T_OK(fd >= 0);
	struct stat st;
	T_OK(fstat(fd, &st) == 0);
	memset(r, 0, sizeof *r);
	read_at(fd, &r->h, sizeof r->h, 0);
	const char *bad = pcprof_raw_header_error(&r->h, (uint64_t)st.st_size);
	if (bad)
		T_FAIL("%s: %s", path, bad);
	T_EQ(r->h.version, PCPROF_RAW_VERSION);
	r->nslot = pcprof_raw_level_first(&r->h.slot, r->h.slot.open);
	r->slot = calloc(r->nslot, sizeof *r->slot);
	T_OK(r->slot != NULL);
	read_at(fd, r->slot, r->nslot * sizeof *r->slot, r->h.slot.off);
	if (r->h.flags & PCPROF_RAW_F_STACKS) {
		r->nnode = pcprof_raw_level_first(&r->h.node, r->h.node.open);
		r->node = calloc(r->nnode, sizeof *r->node);
		T_OK(r->node != NULL);
		read_at(fd, r->node, r->nnode * sizeof *r->node, r->h.node.off);
	}
	close(fd);
}

static void free_recording(struct rec *r)
{
	free(r->slot);
	free(r->node);
}

/* The one slot of pc (more than one is a failure: one thread, no races). */
static const struct pcprof_raw_slot *slot_of(const struct rec *r, uint64_t pc)
{
	const struct pcprof_raw_slot *found = NULL;
	for (uint64_t i = 0; i < r->nslot; i++) {
		if (r->slot[i].key != pc)
			continue;
		if (found)
			T_FAIL("pc %#llx in two slots", (unsigned long long)pc);
		found = &r->slot[i];
	}
	if (!found)
		T_FAIL("no slot for pc %#llx", (unsigned long long)pc);
	return found;
}

/* The callers of a node, innermost first, into pcs; returns how many. */
static int chain(const struct rec *r, uint32_t node, uint64_t *pcs, int max)
{
	int n = 0;
	while (node != PCPROF_RAW_ROOT) {
		if (node >= r->nnode || !r->node[node].pc || n == max)
			T_FAIL("node %u: out of the table, free, or a chain over %d", node, max);
		pcs[n++] = r->node[node].pc;
		node = r->node[node].parent;
	}
	return n;
}

/* Nodes in use, each (parent, pc) once: a single thread never makes two. */
static uint64_t nodes_used(const struct rec *r)
{
	uint64_t used = 0, sum = 0;
	for (uint64_t i = 0; i < r->nnode; i++) {
		if (!r->node[i].pc)
			continue;
		used++;
		for (uint64_t j = i + 1; j < r->nnode; j++)
			if (r->node[j].pc == r->node[i].pc &&
			    r->node[j].parent == r->node[i].parent)
				T_FAIL("nodes %llu and %llu are both (%u, %#llx)",
				       (unsigned long long)i, (unsigned long long)j,
				       r->node[i].parent, (unsigned long long)r->node[i].pc);
	}
	for (uint32_t k = 0; k < r->h.node.open; k++)
		sum += r->h.node.used[k];
	T_EQ(sum, used);
	return used;
}

static void expect_chain(const struct rec *r, uint64_t pc, const uint64_t *want, int n)
{
	uint64_t got[300];
	const struct pcprof_raw_slot *s = slot_of(r, pc);
	T_EQ(s->flags, 0);
	int k = chain(r, s->node, got, 300);
	if (k != n)
		T_FAIL("pc %#llx: %d callers, want %d", (unsigned long long)pc, k, n);
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			T_FAIL("pc %#llx: caller %d is %#llx, want %#llx", (unsigned long long)pc,
			       i, (unsigned long long)got[i], (unsigned long long)want[i]);
}

/* Run the injecting copy (mode: share, full, off); returns its pid. */
static pid_t run_copy(const char *mode, const char *slots, bool stacks)
{
	pid_t c = fork();
	T_OK(c >= 0);
	if (c == 0) {
		char root[32];
		snprintf(root, sizeof root, "%d", (int)getpid());
		setenv("PCPROF_DIR", scratch, 1);
		setenv("PCPROF_ROOT", root, 1);
		setenv("PCPROF_FOLLOW", "1", 1);
		setenv("PROFIL_ENGINE", "manual", 1);
		setenv("PCPROF_SLOTS", slots, 1);
		/* One slot per (pc, stack): with the timeline on, a copy
		 * descheduled across a 10 ms bucket (seen under load) puts the
		 * same stack in a second slot, its bucket's. */
		setenv("PCPROF_TIMELINE", "0", 1);
		if (stacks)
			setenv("PCPROF_STACKS", "1", 1);
		else
			unsetenv("PCPROF_STACKS");
		execl("/proc/self/exe", "t-raw-stacks", mode, (char *)NULL);
		_exit(6);
	}
	int st;
	T_OK(waitpid(c, &st, 0) == c);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("the injecting copy (%s) ended with status %#x", mode, st);
	return c;
}

static void check_share(const char *mode)
{
	struct rec r;
	T_NOTE("%s", mode);
	read_recording(run_copy(mode, "1048576", true), &r);
	T_OK(r.h.flags & PCPROF_RAW_F_STACKS);
	T_EQ(r.h.ticks, 11);
	T_EQ(r.h.lost, 0);
	T_EQ(r.h.stack_cut, 0);
	/* main, b, c, d; [unknown], main under it; 255 of the deep stack */
	T_EQ(nodes_used(&r), 6 + 255);

	expect_chain(&r, 0x1000, (const uint64_t[]){ 0x2000, 0x3000, MAIN }, 3);
	expect_chain(&r, 0x1100, (const uint64_t[]){ 0x2100, 0x3000, MAIN }, 3);
	T_EQ(slot_of(&r, 0x1000)->count, 4);
	T_EQ(slot_of(&r, 0x1100)->count, 2);
	/* shared: the same node for b (and so main) */
	T_EQ(r.node[slot_of(&r, 0x1000)->node].parent, r.node[slot_of(&r, 0x1100)->node].parent);
	expect_chain(&r, 0x1200, (const uint64_t[]){ MAIN, PCPROF_FRAME_UNKNOWN }, 2);
	T_EQ(slot_of(&r, 0x1300)->node, PCPROF_RAW_ROOT);
	T_EQ(slot_of(&r, 0x1400)->node, PCPROF_RAW_NO_STACK);
	T_EQ(slot_of(&r, 0x1400)->flags, 0);
	/* a caller 0: the walk cannot have gone on, the rest is dropped */
	expect_chain(&r, 0x1500, (const uint64_t[]){ PCPROF_FRAME_UNKNOWN }, 1);
	T_EQ(slot_of(&r, 0x1500)->node, r.node[slot_of(&r, 0x1200)->node].parent);

	uint64_t deep[255];
	for (int i = 0; i < 255; i++)
		deep[i] = 0x100000 + 16 * (uint64_t)(i + 1);
	expect_chain(&r, 0x1600, deep, 255);
	free_recording(&r);
}

static void check_full(const char *mode)
{
	struct rec r;
	T_NOTE("%s", mode);
	read_recording(run_copy(mode, "1024", true), &r);
	T_EQ(r.h.node.base, 256);
	T_EQ(r.h.node.max, 2);
	uint64_t used = nodes_used(&r), cut_ticks = 0;
	int cut = 0;
	T_OK(used <= 256 + 512);
	for (int i = 0; i < NFULL; i++) {
		uintptr_t pcs[DEPTH + 1];
		full_stack(i, pcs);
		const struct pcprof_raw_slot *s = slot_of(&r, pcs[0]);
		uint64_t got[DEPTH];
		int n = chain(&r, s->node, got, DEPTH);
		T_EQ(s->count, 1 + (unsigned)i % 3 + (i == 0));
		if (!(s->flags & PCPROF_RAW_SLOT_CUT)) {
			uint64_t want[DEPTH];
			for (int k = 0; k < DEPTH; k++)
				want[k] = pcs[k + 1];
			expect_chain(&r, pcs[0], want, DEPTH);
			continue;
		}
		/* cut: the outermost n callers, main first from the root */
		cut++;
		cut_ticks += s->count;
		T_OK(n >= 1 && n < DEPTH);
		for (int k = 0; k < n; k++)
			if (got[k] != pcs[DEPTH - n + 1 + k])
				T_FAIL("stack %d cut to %d callers: caller %d is %#llx, want %#llx",
				       i, n, k, (unsigned long long)got[k],
				       (unsigned long long)pcs[DEPTH - n + 1 + k]);
	}
	if (cut == 0 || cut == NFULL)
		T_FAIL("%d of %d stacks cut (%llu nodes): the trie should fill part way", cut,
		       NFULL, (unsigned long long)used);
	T_EQ(r.h.stack_cut, cut_ticks);
	T_EQ(r.h.lost, 0);
	free_recording(&r);
}

static void check_fork(void)
{
	run_copy("fork", "1048576", true);
	char path[128];
	snprintf(path, sizeof path, "%s/child", scratch);
	FILE *f = fopen(path, "r");
	int child = 0;
	T_OK(f && fscanf(f, "%d", &child) == 1);
	fclose(f);
	struct rec r;
	read_recording(child, &r);
	/* the child's own nodes, the whole stack */
	T_EQ(nodes_used(&r), 3);
	expect_chain(&r, 0x1000, (const uint64_t[]){ 0x2000, 0x3000, MAIN }, 3);
	free_recording(&r);
}

static void check_off(void)
{
	struct rec r;
	read_recording(run_copy("off", "1048576", false), &r);
	T_OK(!(r.h.flags & PCPROF_RAW_F_STACKS));
	T_EQ(r.h.node.off, 0);
	T_EQ(r.h.ticks, 1);
	T_EQ(slot_of(&r, 0x1000)->node, PCPROF_RAW_NO_STACK);
	free_recording(&r);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "share") == 0)
		return share(), 0;
	if (argc == 2 && strcmp(argv[1], "full") == 0)
		return full(), 0;
	if (argc == 2 && strcmp(argv[1], "share-walked") == 0)
		return walked = true, share(), 0;
	if (argc == 2 && strcmp(argv[1], "full-walked") == 0)
		return walked = true, full(), 0;
	if (argc == 2 && strcmp(argv[1], "fork") == 0)
		return forked();
	if (argc == 2 && strcmp(argv[1], "off") == 0)
		return off();
	scratch_init("t-raw-stacks");
	check_share("share");
	check_share("share-walked");
	check_full("full");
	check_full("full-walked");
	check_off();
	check_fork();
	return 0;
}
