#!/usr/bin/env bash
# Chunked encoding on a Slurm cluster (issue 17; Docs/distributed-encoding.md):
#
#   Scripts/slurm/encode.sh <input> <output> --chunks N [options] [-- <nalu encode options…>]
#
# Submits an array job of N tasks (sbatch --array=0-(N-1)); task I runs
#   $NALU encode <input> --chunk I/N --to annexb -o <workdir>/part-IIIII.<h264|h265> <options…>
# (an MP4/MOV master into an .mp4/.mov output: --to mp4 -o <workdir>/part-IIIII.mp4, each part
# keeping its pictures' times and its share of the audio)
# then a join job that depends on all of them (--dependency=afterok, cancelled if one fails)
# and runs
#   $NALU concat <workdir>/part-00000.… part-00001.… … -o <output>
# waits for the join and exits with its exit status. The parts go to a folder every node sees
# (shared storage): --workdir, default <output's folder>/.<output name>.parts. A part that is
# there is complete (nalu writes under a temporary name and renames), so running the same
# command again after a failure submits only the chunks whose part is missing. The parts are
# removed after a successful join unless --keep-parts.
#
# Options:
#   --chunks N            number of chunks (required)
#   --workdir DIR         shared folder for the parts and the job logs
#   --partition P         Slurm partition (default: the cluster's default)
#   --cpus-per-task C     CPUs for each chunk's task (default 1; give nalu --threads C too)
#   --time T              time limit of each task (sbatch --time)
#   --keep-parts          keep the parts after the join
#
# $NALU is the nalu binary (default: nalu on PATH), on storage the nodes see. The tasks run
# with --requeue: Slurm starts a task again elsewhere when its node fails. Exit status: the
# join's, 1 when a chunk failed (its log is named), 64 for a usage error.
set -euo pipefail

usage() {
    echo "usage: $0 <input> <output> --chunks N [--workdir DIR] [--partition P] [--cpus-per-task C] [--time T] [--keep-parts] [-- <nalu encode options…>]" >&2
    exit 64
}
die() { echo "encode.sh: $1" >&2; exit "${2:-1}"; }

[ $# -ge 2 ] || usage
input=$1 output=$2
shift 2
chunks="" workdir="" keep=0
sbatch_options=()
while [ $# -gt 0 ]; do
    case $1 in
        --chunks) [ $# -ge 2 ] || usage; chunks=$2; shift 2 ;;
        --chunks=*) chunks=${1#*=}; shift ;;
        --workdir) [ $# -ge 2 ] || usage; workdir=$2; shift 2 ;;
        --workdir=*) workdir=${1#*=}; shift ;;
        --partition|--cpus-per-task|--time) [ $# -ge 2 ] || usage; sbatch_options+=("$1=$2"); shift 2 ;;
        --partition=*|--cpus-per-task=*|--time=*) sbatch_options+=("$1"); shift ;;
        --keep-parts) keep=1; shift ;;
        --) shift; break ;;
        *) echo "encode.sh: unknown option $1" >&2; usage ;;
    esac
done
nalu_options=("$@")
[[ $chunks =~ ^[1-9][0-9]*$ ]] || die "--chunks must be a positive number (got '${chunks}')" 64
[ -f "$input" ] || die "$input: no such file (a raw, Y4M or MP4/MOV file that can seek)" 66

nalu=${NALU:-nalu}
nalu=$(command -v "$nalu") || die "${NALU:-nalu}: not found (set NALU to the nalu binary)" 69
for tool in sbatch scontrol scancel; do
    command -v "$tool" >/dev/null || die "$tool not found: is this a Slurm submit host?" 69
done
input=$(realpath "$input")
output=$(realpath -m "$output")
[ -n "$workdir" ] || workdir="$(dirname "$output")/.$(basename "$output").parts"
mkdir -p "$workdir" || die "$workdir: cannot create" 73
workdir=$(realpath "$workdir")

# The parts are Annex-B streams named for their codec (nalu encode takes it from --codec or
# --encoder, else from the part's name).
extension=h264
case $output in *.h265|*.265|*.hevc) extension=h265 ;; esac
for ((i = 0; i < ${#nalu_options[@]}; i++)); do
    value=""
    case ${nalu_options[i]} in
        --codec=*|--encoder=*) value=${nalu_options[i]#*=} ;;
        --codec|--encoder) value=${nalu_options[i + 1]:-} ;;
    esac
    case $value in
        h265|hevc|x265) extension=h265 ;;
        h264|avc|x264|openh264) extension=h264 ;;
    esac
done

# A compressed MP4/MOV master (told by its ftyp/moov box) into an MP4/MOV output: MP4 parts,
# each keeping its pictures' times and its share of the audio (issue 33), joined by nalu concat.
container=annexb
case $output in
    *.mp4|*.MP4|*.mov|*.MOV|*.m4v|*.M4V)
        case $(head -c 8 "$input" | tail -c 4 2>/dev/null) in
            ftyp|moov|free|mdat|wide|skip) extension=mp4 container=mp4 ;;
        esac ;;
esac

part() { printf '%s/part-%05d.%s' "$workdir" "$1" "$extension"; }

# The task and join scripts, quoted once here so any path or option survives.
{
    echo '#!/usr/bin/env bash'
    echo 'set -euo pipefail'
    printf 'workdir=%q\n' "$workdir"
    echo 'index=$SLURM_ARRAY_TASK_ID'
    printf 'part=$(printf "%%s/part-%%05d.%%s" "$workdir" "$index" %q)\n' "$extension"
    printf 'exec %q encode %q --chunk "$index/%d" --to %s -o "$part"' "$nalu" "$input" "$chunks" "$container"
    for option in "${nalu_options[@]}"; do printf ' %q' "$option"; done
    echo
} > "$workdir/task.sh"
{
    echo '#!/usr/bin/env bash'
    echo 'set -euo pipefail'
    printf 'exec %q concat' "$nalu"
    for index in $(seq 0 $((chunks - 1))); do printf ' %q' "$(part "$index")"; done
    printf ' -o %q\n' "$output"
} > "$workdir/join.sh"
chmod +x "$workdir/task.sh" "$workdir/join.sh"

# Only the chunks whose part is missing (all of them the first time).
missing=()
for index in $(seq 0 $((chunks - 1))); do
    [ -f "$(part "$index")" ] || missing+=("$index")
done

array_job=""
join_job=""
cancel() {
    [ -z "$join_job" ] || scancel "$join_job" 2>/dev/null || true
    [ -z "$array_job" ] || scancel "$array_job" 2>/dev/null || true
    exit 130
}
trap cancel INT TERM

dependency=()
if [ ${#missing[@]} -gt 0 ]; then
    if [ ${#missing[@]} -eq "$chunks" ]; then
        array="0-$((chunks - 1))"
    else
        array=$(IFS=,; echo "${missing[*]}")
        echo "encode.sh: ${#missing[@]} of $chunks parts missing in $workdir: submitting chunks $array" >&2
    fi
    array_job=$(sbatch --parsable --requeue --job-name=nalu-encode --array="$array" \
        --chdir="$workdir" --output="$workdir/encode-%a.log" ${sbatch_options[@]+"${sbatch_options[@]}"} "$workdir/task.sh")
    array_job=${array_job%%;*}
    dependency=(--dependency="afterok:$array_job" --kill-on-invalid-dep=yes)
fi
join_job=$(sbatch --parsable --job-name=nalu-join --chdir="$workdir" --output="$workdir/join.log" \
    ${dependency[@]+"${dependency[@]}"} ${sbatch_options[@]+"${sbatch_options[@]}"} "$workdir/join.sh")
join_job=${join_job%%;*}
echo "encode.sh: chunks: job ${array_job:-none}, join: job $join_job, parts in $workdir" >&2

# Wait for the join to end. (sbatch --wait is not enough: it exits 0 when the join is
# cancelled because a chunk failed.)
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -n 1; }
state="" record=""
while true; do
    record=$(scontrol show job -o "$join_job" 2>/dev/null) || die "job $join_job vanished before it ended"
    state=$(field "$record" JobState)
    case $state in
        PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|RESIZING|SUSPENDED|STAGE_OUT|SIGNALING) sleep 1 ;;
        *) break ;;
    esac
done
trap - INT TERM

if [ "$state" = CANCELLED ] && [ -n "$array_job" ]; then
    # The join never ran: name the chunks that failed and their logs.
    failed=0
    while read -r line; do
        [ -n "$line" ] || continue
        task_state=$(field "$line" JobState)
        task=$(field "$line" ArrayTaskId)
        if [ "$task_state" != COMPLETED ]; then
            echo "encode.sh: chunk $task/$chunks: $task_state (exit $(field "$line" ExitCode)); log: $workdir/encode-$task.log" >&2
            failed=$((failed + 1))
        fi
    done < <(scontrol show job -o "$array_job" 2>/dev/null || true)
    echo "encode.sh: $failed chunk(s) failed; the join did not run. Run the same command again to encode only the missing parts." >&2
    exit 1
fi
code=$(field "$record" ExitCode)
status=${code%%:*}
if [ "$state" != COMPLETED ]; then
    echo "encode.sh: the join ended $state (exit $code); log: $workdir/join.log" >&2
    [ "$status" != 0 ] || status=1
    exit "$status"
fi
if [ "$keep" = 0 ]; then
    rm -f "$workdir"/part-*."$extension" "$workdir/task.sh" "$workdir/join.sh" "$workdir"/encode-*.log "$workdir/join.log"
    rmdir "$workdir" 2>/dev/null || true
fi
exit "$status"
