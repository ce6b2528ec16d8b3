#pragma once
// The per-host directory where every zcperf process (zcperf, each zcserver, each zcperf-mpi rank) meets
// the others: irq/ (who holds which IRQ, and what it was before the first mover) and tests/ (the tests
// that run or ran here, for the overlap notes). Files are small "key=value" lines; each owner holds an
// advisory lock on its file, which the kernel drops when the owner dies, so a dead owner is told apart
// from a live one without trusting pids.
#include <map>
#include <optional>
#include <string>

#include "core/unique_fd.hpp"

namespace zc {

// $ZCPERF_RUN_DIR (tests point it at a temporary directory); else /run/zcperf, where root and every
// user of one host meet (created 01777, like /tmp, when this process may create it); else
// /tmp/zcperf-<uid>. `sub` ("irq", "tests") is created under it. Throws std::runtime_error when none can
// be made, naming the directory and ZCPERF_RUN_DIR.
std::string host_run_dir(const std::string& sub);

// An open file with an exclusive OFD lock on it (fcntl F_OFD_SETLK). OFD locks belong to the open file,
// not the process, so two tests inside one zcserver conflict as two processes do; the lock goes when
// the last descriptor of that open file closes, also on kill -9. A forked child that keeps the
// descriptor keeps the lock (the IRQ guardian does, until it has put the IRQs back).
class LockedFile {
public:
    // Opens (creating, unless `create` is false) `path` and takes the lock without waiting: empty if
    // another open file holds it (or, without `create`, if the file is gone).
    static std::optional<LockedFile> try_lock(const std::string& path, bool create = true);
    // Replaces the file's content (the lock is kept).
    void write(const std::string& text) const;
    int fd() const { return fd_.get(); }

private:
    explicit LockedFile(UniqueFd fd) : fd_(std::move(fd)) {}
    UniqueFd fd_;
};

// Whether some open file holds a lock on `path` (false when it does not exist).
bool lock_is_held(const std::string& path);

// "key=value" lines, the format of every file in the run directory.
using KeyValues = std::map<std::string, std::string>;
std::string format_key_values(const KeyValues& kv);
KeyValues parse_key_values(const std::string& text);
std::string read_small_file(const std::string& path);  // "" when missing
// Writes `text` to a temporary file beside `path` and renames it over: readers never see half a file.
void write_file_atomically(const std::string& path, const std::string& text);

// CLOCK_REALTIME in seconds: the one clock every process of a host can compare.
double wall_clock_s();

}  // namespace zc
