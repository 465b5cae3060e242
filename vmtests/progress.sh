# shellcheck shell=bash
# The progress of a long build on stderr, so that a first build is not
# minutes of silence (sourced through lib.sh by build-kernel.sh and
# build-qemu.sh).  Every WSR_PROGRESS_S seconds (30) while it runs:
#
#   wsr: ours kernel: 812/1450 objects (56%), 4:10 so far, about 3:15 left
#   wsr: qemu plain: 640/1306 steps (49%), 2:40 so far, about 2:46 left
#
# and one line when it ends.  The time left assumes the rest goes at the
# pace so far.
#
#   progress_start NAME objects DIR
#       counts the *.o files under DIR made since the call, out of the
#       number the last build of NAME from clean made on this machine
#       ($WSR_CACHE/progress/), or before there is one, NAME's count in
#       WSR_PROGRESS_OBJECTS.  A build that starts with objects in DIR is
#       incremental: how many it will remake is not known, so its lines
#       say how many it made so far.
#   progress_start NAME ninja LOG
#       reads ninja's own "[done/total]" status lines from LOG.
#   progress_stop
#       after the build succeeded: its last line, and the count of a build
#       from clean recorded for next time.  A build script that dies
#       needs no call: the display ends by itself within a second.
#
# The calls are left out of the build scripts' cache keys (hash_inputs in
# lib.sh), since they only read the build and write to stderr: adding
# them rebuilds nothing.  For that, each must be a line of its own with
# nothing but the call and its arguments (no ; & | < > ( ) or backquote);
# anything else on the line puts the line back into the key.

WSR_PROGRESS_S=${WSR_PROGRESS_S:-30}
# objects of a build from clean as counted here (Debian's 6.1.192 source,
# vmtests/kernel.config and kernel-debug.config); here rather than in the
# build scripts, which are part of their cache keys
declare -gA WSR_PROGRESS_OBJECTS=([ours kernel]=1356 [debug kernel]=1375)
_progress_pid=""

# _progress_mmss SECONDS: "M:SS"
_progress_mmss() {
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

# _progress_count KIND WHERE STAMP TOTAL: "MADE TOTAL", what the build made
# since STAMP and out of how many (ninja's own total, else TOTAL; 0: not
# known)
_progress_count() {
	local last
	case "$1" in
	objects) echo "$(find "$2" -name '*.o' -newer "$3" 2>/dev/null | wc -l) $4" ;;
	ninja)
		# the log of the build before, until this one's ninja truncates it
		[ "$2" -nt "$3" ] || { echo "0 0"; return; }
		last=$(grep -o '^\[[0-9]*/[0-9]*\]' "$2" 2>/dev/null | tail -n 1 | sed 's/[][/]/ /g')
		echo "${last:-0 0}" ;;
	esac
}

# _progress_line NAME UNIT DONE TOTAL SECONDS
_progress_line() {
	local name=$1 unit=$2 made=$3 total=$4 t=$5 line
	if [ "$total" -le 0 ]; then
		line="$made $unit made so far, $(_progress_mmss "$t")"
	elif [ "$made" -gt "$total" ]; then
		# more than a build from clean made last time: a bigger build
		line="$made $unit (about $total expected), $(_progress_mmss "$t") so far"
	else
		line="$made/$total $unit ($((made * 100 / total))%), $(_progress_mmss "$t") so far"
		# the first objects say too little about the pace
		[ "$((made * 20))" -lt "$total" ] ||
			line+=", about $(_progress_mmss $((t * (total - made) / made))) left"
	fi
	echo "wsr: $name: $line" >&2
}

# _progress_alive PID: is PID running (not gone, nor a zombie that no one
# reaps, as under a container's init)?
_progress_alive() {
	local state
	read -r _ _ state _ 2>/dev/null <"/proc/$1/stat" || return 1
	[ "$state" != Z ]
}

# _progress_loop PARENT NAME KIND WHERE TOTAL STAMP: runs in the background
_progress_loop() {
	local parent=$1 name=$2 kind=$3 where=$4 total=$5 stamp=$6 unit=objects start=$SECONDS i
	[ "$kind" = objects ] || unit=steps
	while :; do
		for ((i = 0; i < WSR_PROGRESS_S; i++)); do
			if ! _progress_alive "$parent"; then
				rm -f "$stamp"	# progress_stop will not
				return
			fi
			sleep 1
		done
		# shellcheck disable=SC2046 # two numbers
		_progress_line "$name" "$unit" $(_progress_count "$kind" "$where" "$stamp" "$total") \
			$((SECONDS - start))
	done
}

progress_start() {
	local name=$1 kind=$2 where=$3 estimate=${WSR_PROGRESS_OBJECTS[$1]:-0} total=0 rec
	_progress_name=$name _progress_kind=$kind _progress_where=$where
	_progress_clean=0 _progress_t0=$SECONDS
	_progress_record=$WSR_CACHE/progress/${name// /-}
	_progress_stamp=$(mktemp "${TMPDIR:-/tmp}/wsr-progress.XXXXXX") || return 0
	if [ "$kind" = objects ]; then
		if [ -z "$(find "$where" -name '*.o' -print -quit 2>/dev/null)" ]; then
			_progress_clean=1
			read -r rec _ 2>/dev/null <"$_progress_record" || rec=""
			case "$rec" in
			"" | *[!0-9]*) total=$estimate ;;
			*) total=$rec ;;
			esac
		fi
	fi
	# stdout to /dev/null: a caller's $(...) need not wait for the loop
	# to see that its build script ended
	_progress_loop $$ "$name" "$kind" "$where" "$total" "$_progress_stamp" >/dev/null &
	_progress_pid=$!
}

progress_stop() {
	local made t=$((SECONDS - _progress_t0)) unit=objects
	[ -n "$_progress_pid" ] || return 0
	kill "$_progress_pid" 2>/dev/null || true
	wait "$_progress_pid" 2>/dev/null || true
	_progress_pid=""
	[ "$_progress_kind" = objects ] || unit=steps
	read -r made _ < <(_progress_count "$_progress_kind" "$_progress_where" "$_progress_stamp" 0)
	rm -f "$_progress_stamp"
	[ "$made" -gt 0 ] || return 0
	log "$_progress_name: $made $unit made in $(_progress_mmss "$t")"
	if [ "$_progress_clean" = 1 ]; then
		if mkdir -p "${_progress_record%/*}"; then
			echo "$made $t" >"$_progress_record" || true
		fi
	fi
}
