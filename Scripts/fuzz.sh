#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets and runs them.
#
#   Scripts/fuzz.sh build                 build every target
#   Scripts/fuzz.sh build-target TARGET   build one target (and the modules it links)
#   Scripts/fuzz.sh [TARGET|all] [SECONDS] build, then fuzz each target for SECONDS (default 60) or
#                                         RUNS executions (default 10 million), whichever comes first
#   Scripts/fuzz.sh parallel JOBS SECONDS every target, JOBS at a time
#   Scripts/fuzz.sh replay TARGET FILE... run inputs through a target once (reproduce a crash)
#   Scripts/fuzz.sh merge TARGET          minimise the working corpus into .build-fuzz/corpus-min/TARGET
#
# The NALU, NALUEncoder, NALUMP4, NALUTS, NALUIO and NALUMedia module sources are compiled once with -sanitize=fuzzer,address into
# static libraries in .build-fuzz/; each target is the harnesses in Fuzz/Harness (also the
# FuzzHarness SwiftPM target, through which `swift test` replays the regression inputs) plus a
# three-line LLVMFuzzerTestOneInput in Fuzz/Targets/TARGET.swift, linked against them. Seeds come from Tests/Fixtures
# (Fuzz/make-seeds.py) and the regression inputs in Tests/Fixtures/fuzz-regressions/TARGET; the
# working corpus is .build-fuzz/corpus/TARGET (not committed).
# Crashes, leaks, timeouts (>10 s per input) and out-of-memory (>256 MB RSS, issue 18) inputs are written to
# .build-fuzz/artifacts/TARGET/. Extra libFuzzer flags can be passed in FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/.build-fuzz
TARGETS=(mp4 ts hevc-ps convert annexb avc-ps access-units lengthprefixed y4m records ps-write lent hls dash package-doctor package decoder-feed ts-audio tracks reader interlace rtp-depacketize sdp rtsp-response rtcp rtp-aac)
TARGETS+=(edit-options) # nalu edit's option value parsers (issue 39: moved from the CLI into NALU)
TARGETS+=(concat-ts) # joins of transport streams: each picture's PES times, the audio streams (issue 41)
SWIFTC=${SWIFTC:-swiftc}
FLAGS=(-O -g -use-ld=lld -sanitize=fuzzer,address -parse-as-library -swift-version 6
       -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
       -package-name nalu)
mkdir -p "$OUT/bin"

newer_than() { # newer_than OUTPUT INPUTS...: true when OUTPUT is missing or older than an input
    local output=$1; shift
    [[ ! -e $output ]] && return 0
    [[ -n $(find "$@" -newer "$output" -print -quit) ]]
}

build_module() { # build_module NAME DIR
    local name=$1 dir=$2
    if newer_than "$OUT/lib$name.a" "$dir" "$0"; then
        echo "fuzz: building $name with -sanitize=fuzzer,address" >&2
        # A static library is written by appending members: an old archive would keep the
        # previous build's objects beside the new ones (duplicate symbols at link time).
        rm -f "$OUT/lib$name.a"
        "$SWIFTC" "${FLAGS[@]}" -wmo -num-threads 2 -emit-library -static -emit-module -module-name "$name" \
            -I "$OUT" -emit-module-path "$OUT/$name.swiftmodule" $(find "$dir" -name '*.swift' | sort) \
            -o "$OUT/lib$name.a"
    fi
}

build_target() { # build_target TARGET: the harnesses (Fuzz/Harness) and the target's entry point
    local target=$1
    if newer_than "$OUT/bin/$target" "Fuzz/Targets/$target.swift" Fuzz/Harness "$OUT/libNALU.a" "$OUT/libNALURTP.a" "$OUT/libNALURTPMedia.a" "$OUT/libNALUEncoder.a" "$OUT/libNALUMP4.a" "$OUT/libNALUTS.a" "$OUT/libNALUIO.a" "$OUT/libNALUMedia.a" "$OUT/libNALUDecoder.a" "$OUT/libNALUPackager.a" "$OUT/libNALUDoctor.a"; then
        echo "fuzz: building target $target" >&2
        "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_${target//-/_}" -I "$OUT" -L "$OUT" -lNALURTPMedia -lNALURTP -lNALUDoctor -lNALUPackager -lNALUMedia -lNALUIO -lNALUDecoder -lNALUMP4 -lNALUTS -lNALUEncoder -lNALU \
            Fuzz/Harness/*.swift "Fuzz/Targets/$target.swift" -o "$OUT/bin/$target"
    fi
}

build_modules() {
    build_module NALU Sources/NALU
    build_module NALUEncoder Sources/NALUEncoder
    build_module NALUMP4 Sources/NALUMP4
    build_module NALUTS Sources/NALUTS
    build_module NALUIO Sources/NALUIO
    build_module NALUMedia Sources/NALUMedia
    build_module NALUDecoder Sources/NALUDecoder
    build_module NALUPackager Sources/NALUPackager
    build_module NALUDoctor Sources/NALUDoctor
    build_module NALURTP Sources/NALURTP
    build_module NALURTPMedia Sources/NALURTPMedia
}

build_all() {
    build_modules
    for target in "${TARGETS[@]}"; do build_target "$target"; done
}

seed() {
    rm -rf "$OUT/seeds"
    python3 Fuzz/make-seeds.py Tests/Fixtures "$OUT/seeds"
}

max_len() { # max_len TARGET: inputs up to 4 kB, MP4 files up to 16 kB (a moov with a few tracks), TS 16 kB (~85 packets), package and reader 16 kB (MP4 or TS inputs), ts-audio 16 kB, tracks 16 kB (MP4)
    [[ $1 == mp4 || $1 == ts || $1 == package || $1 == ts-audio || $1 == tracks || $1 == reader || $1 == concat-ts ]] && echo 16384 || echo 4096
}

run_target() { # run_target TARGET SECONDS
    local target=$1 seconds=$2
    local corpus=$OUT/corpus/$target artifacts=$OUT/artifacts/$target
    mkdir -p "$corpus" "$artifacts" "$OUT/seeds/$target"
    local dirs=("$corpus" "$OUT/seeds/$target")
    [[ -d Tests/Fixtures/fuzz-regressions/$target ]] && dirs+=("Tests/Fixtures/fuzz-regressions/$target")
    local log=$OUT/logs/$target-$(date +%Y%m%d-%H%M%S).log
    mkdir -p "$OUT/logs"
    echo "fuzz: $target for ${seconds}s, log $log" >&2
    local status=0
    # ASan's quarantine (freed memory held back to catch use-after-free; 256 MB by default) would
    # count against -rss_limit_mb by itself after ~500k runs: keep it small so the limit measures
    # nalu's own memory. -malloc_limit_mb catches a single oversized allocation at once.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=16} \
    "$OUT/bin/$target" "${dirs[@]}" -max_total_time="$seconds" -runs=${RUNS:-10000000} -timeout=10 -rss_limit_mb=256 -malloc_limit_mb=256 \
        -max_len=${MAX_LEN:-$(max_len "$target")} -artifact_prefix="$artifacts/" -print_final_stats=1 ${FUZZ_FLAGS:-} \
        >"$log" 2>&1 || status=$?
    local runs rate
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    local cov; cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz: $target: status $status, ${runs:-?} executions in ${seconds}s (${rate:-?}/s), $cov, corpus $(ls "$corpus" | wc -l) files"
    if [[ $status -ne 0 ]]; then
        grep -E 'ERROR|fuzz property|Fatal error|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -20
    fi
    return $status
}

case ${1:-all} in
    build) build_all ;;
    build-target) build_modules; build_target "$2" ;; # build-target TARGET: the modules and one target
    parallel) # parallel JOBS SECONDS: every target, JOBS at a time (built and seeded once)
        jobs=${2:-2}; seconds=${3:-1800}
        build_all; seed
        printf '%s\n' "${TARGETS[@]}" | xargs -P "$jobs" -I{} "$0" run-built {} "$seconds" ;;
    run-built) run_target "$2" "$3" ;; # one target, already built and seeded
    replay)
        target=$2; shift 2
        build_all
        "$OUT/bin/$target" -runs=1 "$@" ;;
    merge)
        target=$2
        build_all
        rm -rf "$OUT/corpus-min/$target"
        mkdir -p "$OUT/corpus-min/$target" "$OUT/corpus/$target"
        "$OUT/bin/$target" -merge=1 -max_len=${MAX_LEN:-$(max_len "$target")} "$OUT/corpus-min/$target" "$OUT/corpus/$target"
        echo "fuzz: $target: $(ls "$OUT/corpus-min/$target" | wc -l) files, $(du -sh "$OUT/corpus-min/$target" | cut -f1) in $OUT/corpus-min/$target" ;;
    *)
        which=${1:-all}; seconds=${2:-60}
        build_all; seed
        list=("${TARGETS[@]}")
        [[ $which != all ]] && list=("$which")
        failed=0
        for target in "${list[@]}"; do run_target "$target" "$seconds" || failed=1; done
        exit $failed ;;
esac
