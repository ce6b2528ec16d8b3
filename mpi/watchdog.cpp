#include "watchdog.hpp"

#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <iostream>

namespace zc::mpi {

bool wait_request(MPI_Request& req, Clock::time_point deadline, bool watch_end) {
    int done = 0;
    auto pause = std::chrono::microseconds(50);
    while (true) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        int ended = 0;
        if (watch_end) MPI_Iprobe(0, kEndTag, MPI_COMM_WORLD, &ended, MPI_STATUS_IGNORE);
        if (ended) {
            std::cerr << "zcperf-mpi: rank 0 ended the job (a rank is missing: its report names it)" << std::endl;
            _exit(1);
        }
        if (Clock::now() > deadline) return false;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(500));
    }
}

Clock::time_point after(double seconds) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(Seconds(seconds));
}

[[noreturn]] void abort_job(int rank, const std::string& why) {
    std::cerr << "zcperf-mpi: rank " << rank << ": " << why << "; ending the job (MPI_Abort)" << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

sigset_t launcher_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    return set;
}

void Watchdog::watch() {
    const sigset_t set = launcher_signals();
    const timespec tick{0, 200'000'000};
    while (true) {
        int sig = sigtimedwait(&set, nullptr, &tick);
        std::unique_lock lock(m_);
        if (done_) return;
        if (sig > 0) {
            std::string why = fmt::format("the launcher sent {} while this rank was in {}",
                                          sig == SIGTERM ? "SIGTERM" : "SIGINT", phase_);
            lock.unlock();
            std::cerr << "zcperf-mpi: rank " << rank_ << ": " << why << "; exiting" << std::endl;
            {
                std::lock_guard hook_lock(hook_m_);
                if (hook_) hook_(why);
            }
            _exit(128 + sig);
        }
        if (Clock::now() < deadline_) continue;
        std::cerr << "zcperf-mpi: rank " << rank_ << ": watchdog: still in " << phase_
                  << " past the job's bound; ending the job (MPI_Abort)" << std::endl;
        MPI_Abort(MPI_COMM_WORLD, 3);  // MPI_THREAD_MULTIPLE was asked for this call
        _exit(3);
    }
}

}  // namespace zc::mpi
