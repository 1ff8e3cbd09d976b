/*
 * T84 [RT], the automatic stop: with SIGPROF at SIG_IGN, profiling into a
 * buffer that is then made read-only stops itself at the first tick that
 * faults (within TP_EVENT_CPU seconds of CPU); once the next profil() call
 * has settled it, every signal disposition is as before profiling.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	tp_skip_fault_path_under_tsan();
	struct sigaction ign;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaddset(&ign.sa_mask, SIGUSR1);
	T_OK(sigaction(SIGPROF, &ign, NULL) == 0);

	size_t page;
	unsigned short *buf = tp_page(&page);
	struct tp_dispositions before, after;
	tp_save_dispositions(&before);
	tp_profil_on(buf, page, 0, 2);
	T_OK(mprotect(buf, page, PROT_READ) == 0);
	tp_burn_until_off();
	T_EQ(tp_profil_off(), 0);
	tp_save_dispositions(&after);
	tp_same_dispositions(&before, &after);
	return 0;
}
