#include "run/concurrent_tests.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>

#include "system/cpu_list.hpp"

namespace zc {

namespace fs = std::filesystem;

namespace {

// How long an ended test's file stays for the tests that overlapped it to find: longer than any test
// (zcserver's --max-duration is an hour by default), pruned by whoever scans after that.
constexpr double kKeepEndedS = 2 * 3600;

double number_of(const KeyValues& kv, const char* key) {
    auto it = kv.find(key);
    double v = 0;
    if (it != kv.end()) std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    return v;
}

std::string text_of(const KeyValues& kv, const char* key) {
    auto it = kv.find(key);
    return it == kv.end() ? std::string() : it->second;
}

std::string format_entry(const ConcurrentTestEntry& e, bool died = false) {
    KeyValues kv{{"program", e.program},
                 {"pid", std::to_string(e.pid)},
                 {"peer", e.peer},
                 {"test", e.test},
                 {"token", std::to_string(e.token)},
                 {"cpus", format_cpu_list(e.cpus)},
                 {"start", fmt::format("{:.6f}", e.start_s)}};
    if (e.end_s > 0) kv["end"] = fmt::format("{:.6f}", e.end_s);
    if (died) kv["died"] = "1";
    return format_key_values(kv);
}

}  // namespace

std::vector<ConcurrentTest> tests_overlapping(const std::string& dir, uint64_t token, double from_s, double to_s,
                                              double now_s) {
    std::vector<ConcurrentTest> out;
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(dir, ec)) {
        std::string path = f.path().string();
        if (f.path().extension() != ".test") continue;
        KeyValues kv = parse_key_values(read_small_file(path));
        if (!kv.count("start")) continue;  // just created, not written yet (or gone)
        double start = number_of(kv, "start"), end = number_of(kv, "end");
        bool died = kv.count("died") > 0;
        if (end == 0) {
            if (lock_is_held(path)) {
                end = now_s;  // it runs
            } else if (auto lock = LockedFile::try_lock(path, false)) {
                // Nobody holds it and it never ended: its process died (kill -9). It ran until at most now;
                // say so in its file, so the tests that start from now on do not count it.
                kv = parse_key_values(read_small_file(path));
                if (!kv.count("start")) continue;
                if (number_of(kv, "end") == 0) {
                    kv["end"] = fmt::format("{:.6f}", now_s);
                    kv["died"] = "1";
                    lock->write(format_key_values(kv));
                }
                end = number_of(kv, "end");
                died = true;
            } else {
                end = now_s;  // taken again between the two looks: it is being written
            }
        }
        if (end > 0 && end < now_s - kKeepEndedS && !lock_is_held(path)) {
            ::unlink(path.c_str());
            continue;
        }
        if (std::to_string(token) == text_of(kv, "token")) continue;  // this test's own sides
        double overlap = std::min(end, to_s) - std::max(start, from_s);
        if (overlap <= 0) continue;
        ConcurrentTest t;
        t.program = text_of(kv, "program");
        t.pid = static_cast<int>(number_of(kv, "pid"));
        t.peer = text_of(kv, "peer");
        t.test = text_of(kv, "test");
        t.overlap_s = overlap;
        try {
            if (!text_of(kv, "cpus").empty()) t.cpus = parse_cpu_list(text_of(kv, "cpus"));
        } catch (const std::exception&) {}  // a file from some other version: no CPUs known
        t.died = died;
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.overlap_s > b.overlap_s; });
    return out;
}

ConcurrentTestRecord::ConcurrentTestRecord(ConcurrentTestEntry me, const std::string& dir)
    : me_(std::move(me)), dir_(dir.empty() ? host_run_dir("tests") : dir) {
    static std::atomic<unsigned> seq{0};
    path_ = dir_ + "/" + std::to_string(::getpid()) + "-" + std::to_string(seq.fetch_add(1)) + ".test";
    lock_ = LockedFile::try_lock(path_);
    if (!lock_) throw std::runtime_error("cannot lock " + path_ + ": another process holds it");
    lock_->write(format_entry(me_));
}

ConcurrentTestRecord::~ConcurrentTestRecord() {
    if (ended_) return;
    try {
        end(wall_clock_s());  // a test stopped early loaded the host all the same
    } catch (...) {}
}

std::vector<ConcurrentTest> ConcurrentTestRecord::overlapping(double end_s) const {
    return tests_overlapping(dir_, me_.token, me_.start_s, end_s, wall_clock_s());
}

void ConcurrentTestRecord::end(double end_s) {
    me_.end_s = end_s;
    lock_->write(format_entry(me_));
    lock_.reset();
    ended_ = true;
}

std::vector<std::string> shared_cpu_warnings(const std::vector<int>& my_cpus,
                                             const std::vector<ConcurrentTest>& others) {
    std::vector<std::string> out;
    for (const auto& t : others) {
        std::vector<int> both;
        for (int c : t.cpus)
            if (std::find(my_cpus.begin(), my_cpus.end(), c) != my_cpus.end()) both.push_back(c);
        if (both.empty()) continue;
        out.push_back(
            fmt::format("CPU {} was the data CPU of this test and of another test on this host, {}: both "
                        "tests' data threads took turns on it, so neither measured that CPU alone",
                        format_cpu_list(both), describe(t)));
    }
    return out;
}

}  // namespace zc
