every_engine "none prctl 0.12 0.03" "kill-process prctl 0.12 0.03" "trap prctl 0.12 0.03" \
	"kill-thread prctl 0.12 0.03"
no_raw_dirs
exit 0
