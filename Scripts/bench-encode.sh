#!/usr/bin/env bash
# Encodes the same raw input with `nalu encode` and with the x264/x265 CLIs at identical
# settings and prints wall time, fps, peak RSS and output size side by side (Markdown).
#
#   Scripts/bench-encode.sh [frames=300] [size=640x360] [runs=3] [presets="veryfast medium"]
#
# Needs: a release build (swift build -c release), ffmpeg (to make the input), x264, x265,
# GNU time (/usr/bin/time -v). CLI and nalu runs alternate; wall and CPU
# time are the fastest of `runs` runs, peak RSS the median.
set -euo pipefail
cd "$(dirname "$0")/.."

FRAMES=${1:-300}
SIZE=${2:-640x360}
RUNS=${3:-3}
PRESETS=${4:-"veryfast medium"}
BITRATE_K=2500
GOP=150
NALU=.build/release/nalu
WORK=${BENCH_DIR:-/tmp/nalu-bench-encode}
mkdir -p "$WORK"
INPUT="$WORK/input-$SIZE-$FRAMES.yuv"

[ -x "$NALU" ] || { echo "build first: swift build -c release" >&2; exit 1; }
if [ ! -f "$INPUT" ]; then
    # Moving, detailed synthetic content (colour bars, gradients, a clock) at 30 fps.
    ffmpeg -v error -f lavfi -i "testsrc2=size=$SIZE:rate=30" -frames:v "$FRAMES" -pix_fmt yuv420p -f rawvideo "$INPUT"
fi

# run_once <output> <command...>: prints "wall_s cpu_s rss_kib" for one run.
run_once() {
    local output=$1; shift
    rm -f "$output"
    /usr/bin/time -v "$@" 2> "$WORK/time.txt" > /dev/null
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }
        /User time/ { cpu += $2 } /System time/ { cpu += $2 }
        /Maximum resident set size/ { rss = $2 }
        END { print wall, cpu, rss }' "$WORK/time.txt"
}

# The machine may be shared: runs of the CLI and of nalu alternate so background load hits both
# alike, and each cell keeps the fastest run (wall and CPU) and the median peak RSS.
summarise() { sort -n | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}'; }

echo "| codec | preset | tool | wall (s) | fps | CPU (s) | peak RSS (MiB) | output (bytes) |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for codec in h264 hevc; do
    for preset in $PRESETS; do
        if [ "$codec" = h264 ]; then
            ext=h264
            cli=(x264 --quiet --preset "$preset" --bitrate "$BITRATE_K" --keyint "$GOP" --input-res "$SIZE" --fps 30 -o "$WORK/cli.$ext" "$INPUT")
        else
            ext=h265
            # x265's CLI writes headers once and uses open GOPs by default; nalu repeats headers
            # before every keyframe and uses closed GOPs, so ask the CLI for the same.
            cli=(x265 --log-level error --preset "$preset" --bitrate "$BITRATE_K" --keyint "$GOP" --no-open-gop --repeat-headers
                 --input-res "$SIZE" --fps 30 --input "$INPUT" -o "$WORK/cli.$ext")
        fi
        ours=("$NALU" encode "$INPUT" --size "$SIZE" --fps 30 --codec "$codec" --preset "$preset" --bitrate "${BITRATE_K}k"
              --gop "$GOP" --quiet -o "$WORK/nalu.$ext")
        : > "$WORK/cli.runs"; : > "$WORK/nalu.runs"
        for _ in $(seq "$RUNS"); do
            run_once "$WORK/cli.$ext" "${cli[@]}" >> "$WORK/cli.runs"
            run_once "$WORK/nalu.$ext" "${ours[@]}" >> "$WORK/nalu.runs"
        done
        read -r cw _ <<< "$(cut -d' ' -f1 "$WORK/cli.runs" | summarise)"
        read -r cc _ <<< "$(cut -d' ' -f2 "$WORK/cli.runs" | summarise)"
        read -r _ cr <<< "$(cut -d' ' -f3 "$WORK/cli.runs" | summarise)"
        read -r nw _ <<< "$(cut -d' ' -f1 "$WORK/nalu.runs" | summarise)"
        read -r nc _ <<< "$(cut -d' ' -f2 "$WORK/nalu.runs" | summarise)"
        read -r _ nr <<< "$(cut -d' ' -f3 "$WORK/nalu.runs" | summarise)"
        cb=$(stat -c %s "$WORK/cli.$ext"); nb=$(stat -c %s "$WORK/nalu.$ext")
        name=$([ "$codec" = h264 ] && echo x264 || echo x265)
        awk -v c="$codec" -v p="$preset" -v n="$name" -v f="$FRAMES" -v cw="$cw" -v cc="$cc" -v cr="$cr" -v cb="$cb" \
            -v nw="$nw" -v nc="$nc" -v nr="$nr" -v nb="$nb" 'BEGIN {
            printf "| %s | %s | %s CLI | %.2f | %.1f | %.2f | %.1f | %d |\n", c, p, n, cw, f / cw, cc, cr / 1024, cb
            printf "| %s | %s | nalu encode | %.2f (%+.1f%%) | %.1f | %.2f (%+.1f%%) | %.1f (%+.1f MiB) | %d (%+.2f%%) |\n", c, p, nw, (nw / cw - 1) * 100, f / nw, nc, (nc / cc - 1) * 100, nr / 1024, (nr - cr) / 1024, nb, (nb / cb - 1) * 100
        }'
    done
done
