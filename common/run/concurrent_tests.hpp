#pragma once
// The tests running (or lately run) on this host, whoever runs them: every side of every test (zcperf,
// each zcserver session, each zcperf-mpi rank) keeps a file in the host's run directory (tests/) for
// its measured interval, holding an OFD lock on it while it runs (system/run_dir.hpp). At its end a
// side reads the others' files to learn which tests overlapped its interval, then writes its own end
// and lets the lock go; the file stays a while so that a test still running learns of it when it ends.
// A file whose lock is free but that has no end is a test that died: it counts up to the file's last
// change. The two sides of one test (a same-host zcperf and its server) share the test's token and
// do not count each other.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/concurrent_test.hpp"
#include "system/run_dir.hpp"

namespace zc {

struct ConcurrentTestEntry {
    std::string program;
    int pid = 0;
    std::string peer;
    std::string test;  // "tcp stream"
    uint64_t token = 0;
    std::vector<int> cpus;
    double start_s = 0;  // wall clock (wall_clock_s), the measured interval's start
    double end_s = 0;    // 0 while it runs
};

// The other tests (not `token`'s) of the run directory that ran during [from_s, to_s], with how long
// each overlapped it. `now_s` ends a test still running.
std::vector<ConcurrentTest> tests_overlapping(const std::string& dir, uint64_t token, double from_s, double to_s,
                                              double now_s);

// This side's file: written with its lock held at the start of the measured interval, given its end
// by end() (or, destroyed without one, by its destructor: a test stopped early loaded the host too).
class ConcurrentTestRecord {
public:
    // dir "" = host_run_dir("tests"). Throws std::runtime_error if the run directory cannot be used.
    ConcurrentTestRecord(ConcurrentTestEntry me, const std::string& dir = "");
    ConcurrentTestRecord(const ConcurrentTestRecord&) = delete;
    ConcurrentTestRecord& operator=(const ConcurrentTestRecord&) = delete;
    ~ConcurrentTestRecord();

    const std::string& dir() const { return dir_; }
    const ConcurrentTestEntry& entry() const { return me_; }
    // The others that overlapped [start, end_s] so far (end_s: now while it runs).
    std::vector<ConcurrentTest> overlapping(double end_s) const;
    // Records the end (the file stays, for the tests still running) and lets the lock go.
    void end(double end_s);

private:
    ConcurrentTestEntry me_;
    std::string dir_;
    std::string path_;
    std::optional<LockedFile> lock_;
    bool ended_ = false;
};

// Tests two same-host tests share data CPUs with: "CPU 1 with zcperf pid 812 (...)"; empty if none.
std::vector<std::string> shared_cpu_warnings(const std::vector<int>& my_cpus,
                                             const std::vector<ConcurrentTest>& others);

}  // namespace zc
