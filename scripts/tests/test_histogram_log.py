#!/usr/bin/python3
"""--histogram-log end to end: zcperf's rr round trips, read back by two routes that share no code with zcperf.

1. This file's own decoder, written from HdrHistogram's definition of the log and the V2 encoding
   (HistogramLogWriter / AbstractHistogram.encodeIntoCompressedByteBuffer in HdrHistogram's Java sources):
   base64, the compressed cookie 0x1c849314, zlib (Python's zlib module), the V2 header, ZigZag LEB128
   counts; each count's value range from HdrHistogram's own valueFromIndex at 2 significant digits.
2. HdrHistogram's own tool, HistogramLogProcessor (Debian's libhdrhistogram-java, run with the JRE):
   its percentile distribution of the log must hold every transaction, and its median the same bucket.

    test_histogram_log.py PATH/TO/zcperf        exit 0 pass, 1 fail
"""
import base64
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HDR_JAR = "/usr/share/java/hdrhistogram.jar"  # libhdrhistogram-java


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def zigzag_words(data):
    at = 0
    while at < len(data):
        value, shift = 0, 0
        while True:
            byte = data[at]
            at += 1
            if shift == 56:  # LEB128-64b9B: the 9th byte carries 8 bits
                value |= byte << 56
                break
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        yield (value >> 1) ^ -(value & 1)


def value_from_index(index):  # HdrHistogram, unitMagnitude 0, subBucketHalfCountMagnitude 7
    bucket = (index >> 7) - 1
    sub = (index & 127) + 128
    if bucket < 0:
        sub -= 128
        bucket = 0
    return sub << bucket, 1 << bucket  # lowest value, width


def decode(text):
    raw = base64.b64decode(text)
    cookie, length = struct.unpack(">iI", raw[:8])
    if cookie != 0x1C849314:
        fail(f"compressed cookie {cookie:#x}, not V2's 0x1c849314")
    plain = zlib.decompress(raw[8:8 + length])
    cookie, payload, offset, digits, lowest, highest, ratio = struct.unpack(">iIiiqqd", plain[:40])
    if (cookie, offset, digits, lowest, ratio) != (0x1C849313, 0, 2, 1, 1.0) or len(plain) != 40 + payload:
        fail(f"V2 header {(hex(cookie), payload, offset, digits, lowest, highest, ratio)}, {len(plain)} bytes")
    counts, index = {}, 0
    for word in zigzag_words(plain[40:]):
        if word < 0:
            index -= word
        else:
            if word:
                counts[index] = word
            index += 1
    return counts, highest


def main():
    zcperf = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="histogram_log_test.")
    log = os.path.join(tmp, "rr.hlog")
    done = subprocess.run([zcperf, "-t", "rr", "-m", "64", "-l", "1", "--histogram-log", log, "-o", "json"],
                          capture_output=True, text=True, timeout=120)
    if done.returncode:
        fail(f"zcperf exited {done.returncode}: {done.stderr}")
    rr = json.loads(done.stdout)["results"][0]["rr"]
    transactions, p50_us = rr["transactions"], rr["rtt_us"]["p50"]

    lines = open(log).read().splitlines()
    if lines[0] != "#[Histogram log format version 1.3]" or not lines[1].startswith("#[StartTime: "):
        fail(f"log header: {lines[:2]}")
    if lines[2] != '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"':
        fail(f"legend: {lines[2]}")
    if len(lines) != 4:
        fail(f"one test, one interval line: {len(lines) - 3}")
    start, length, max_ms, text = lines[3].split(",")
    counts, highest = decode(text)
    if sum(counts.values()) != transactions:
        fail(f"decoded {sum(counts.values())} round trips, the report counted {transactions}")
    # zcperf's p50 (a bucket's midpoint) lies in the bucket HdrHistogram's nearest rank picks.
    rank, seen = (transactions * 50 + 99) // 100, 0
    for index in sorted(counts):
        seen += counts[index]
        if seen >= rank:
            low, width = value_from_index(index)
            break
    if not low <= p50_us * 1000 < low + width:
        fail(f"p50 {p50_us} us is not in the decoded median bucket [{low}, {low + width}) ns")
    top_low, top_width = value_from_index(max(counts))
    # Interval_Max is written in ms with 3 decimals (the log format's): 0.5 us of rounding either way, so a max at
    # 3506176 ns prints 3.506, below its bucket's first value.
    max_ns = float(max_ms) * 1e6
    if not (top_low - 500 <= max_ns < top_low + top_width + 500 and highest == top_low + top_width - 1):
        fail(f"Interval_Max {max_ms} ms / highest {highest} against the top bucket [{top_low}, {top_low + top_width})")
    if abs(float(length) - rr["elapsed_s"]) > 0.01 or float(start) < 0:
        fail(f"start {start} s, length {length} s against the test's interval {rr['elapsed_s']} s")

    # HdrHistogram's own reader (Java): its percentile distribution of the log.
    out = os.path.join(tmp, "processed")
    java = subprocess.run(["java", "-cp", HDR_JAR, "org.HdrHistogram.HistogramLogProcessor", "-i", log, "-o", out,
                           "-outputValueUnitRatio", "1000"], capture_output=True, text=True, timeout=120)
    if java.returncode:
        fail(f"HistogramLogProcessor exited {java.returncode}: {java.stderr[-2000:]}")
    hgrm = open(out + ".hgrm").read()
    total = next((line for line in hgrm.splitlines() if "Total count" in line), "")
    if f"Total count    = {transactions:12d}" not in total:
        fail(f"HistogramLogProcessor's total: '{total}', the report's transactions {transactions}")
    median = next(float(line.split()[0]) for line in hgrm.splitlines()
                  if line.strip() and line.split()[1:2] == ["0.500000000000"])
    # It prints the top of the bucket (highestEquivalentValue) in µs with 2 decimals: allow that rounding.
    if not low / 1000 - 0.005 <= median <= (low + width) / 1000 + 0.005:
        fail(f"HistogramLogProcessor's median {median} us is not in [{low / 1000}, {(low + width) / 1000}) us")
    print(f"PASS: {transactions} round trips decoded by hand and by HdrHistogram's HistogramLogProcessor "
          f"(median {median} us; zcperf's p50 {p50_us} us, the same bucket)")


if __name__ == "__main__":
    main()
