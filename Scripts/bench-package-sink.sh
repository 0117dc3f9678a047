#!/usr/bin/env bash
# Packaging as a streaming sink against cp, cat and ffmpeg's HLS muxer in one run (issue 39
# "Tests and figures": ≤ 1.5× cp). Input: 60 s of 1280x720 testsrc2 at 30 fps, x264 ultrafast
# 8 Mbit/s, 2 B-frames, 2 s GOP, AAC 128 kbit/s (62 MB), as Docs/performance.md's packaging
# sections use. Output to the same file system as the input (cp uses copy_file_range there).
#
# Prints: which system call cp copies with (strace), the system-call profile of nalu package
# (strace -c -f), page faults and CPU of each command (perf stat), hyperfine (-N, 2 warm-ups,
# RUNS runs, output folder removed before each run) and the md5 of every file nalu wrote (to
# compare two builds: the bytes must not change).
#   Scripts/bench-package-sink.sh [RUNS]   (after swift build -c release --product nalu)
set -euo pipefail
cd "$(dirname "$0")/.."
nalu=$(pwd)/${BIN:-.build/release}/nalu
runs=${1:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/nalu-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 -f lavfi -i sine -t 60 -c:v libx264 -preset ultrafast \
    -b:v 8M -bf 2 -g 60 -c:a aac -b:a 128k big.mp4
ls -l big.mp4
echo "== cp's copy call"
strace -f -e trace=copy_file_range,sendfile,read,write,ioctl -o cp.strace cp big.mp4 cp.mp4
grep -E "copy_file_range|sendfile|FICLONE" cp.strace | head -3 || true
echo "== nalu package: system calls"
rm -rf n && strace -f -c -o nalu.strace "$nalu" package big.mp4 -o n --hls > /dev/null
head -14 nalu.strace
echo "== CPU and page faults"
for command in "cp big.mp4 cp.mp4" "sh -c 'cat big.mp4 > cat.mp4'" "$nalu package big.mp4 -o n --hls" \
    "ffmpeg -v error -y -i big.mp4 -c copy -f hls -hls_segment_type fmp4 -hls_time 4 f/p.m3u8"; do
    rm -rf n f cp.mp4 cat.mp4 && mkdir f
    echo "$command: $(eval perf stat -x, -e task-clock,page-faults "$command" 2>&1 > /dev/null | cut -d, -f1,3 | tr '\n' ' ')"
done
echo "== hyperfine"
hyperfine -N -w 2 -r "$runs" --export-markdown h.md \
    --prepare "rm -f cp.mp4" "cp big.mp4 cp.mp4" \
    --prepare "rm -f cat.mp4" "sh -c 'cat big.mp4 > cat.mp4'" \
    --prepare "rm -rf n" "$nalu package big.mp4 -o n --hls" \
    --prepare "sh -c 'rm -rf f; mkdir f'" "ffmpeg -v error -y -i big.mp4 -c copy -f hls -hls_segment_type fmp4 -hls_time 4 f/p.m3u8" > /dev/null
cat h.md
echo "== md5 of nalu's output"
(cd n && md5sum * | md5sum | sed 's/-$/(all files)/'; ls | wc -l)
# The same video without its audio: the pictures lie one after another in the file (long runs
# of samples: Docs/performance.md, "Sample bytes copied by the kernel"); and the md5 of each
# packaging mode, to compare two builds.
ffmpeg -v error -i big.mp4 -c copy -an bigv.mp4
echo "== video only: CPU and page faults"
for command in "cp bigv.mp4 cpv.mp4" "$nalu package bigv.mp4 -o nv --hls"; do
    rm -rf nv cpv.mp4
    echo "$command: $(eval perf stat -r "$runs" --pre "'rm -rf nv cpv.mp4'" -x, -e task-clock,page-faults "$command" 2>&1 > /dev/null | cut -d, -f1,3 | tr '\n' ' ')"
done
echo "== md5 of every packaging mode"
for input in big.mp4 bigv.mp4; do
    for mode in "--hls" "--hls --dash" "--hls --segment-type ts" "--hls --part-duration 0.5" "--hls --dash --single-file"; do
        rm -rf m && "$nalu" package "$input" -o m $mode > /dev/null
        echo "$input $mode: $(cd m && md5sum * | md5sum | cut -c1-32) ($(ls m | wc -l) files)"
    done
done
