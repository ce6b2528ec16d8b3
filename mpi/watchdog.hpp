#pragma once
// zcperf-mpi's bounds: every wait on MPI is polled up to a deadline (wait_request), and the Watchdog
// ends a rank still running past the whole job's bound, or taken by the launcher's signal.
#include <mpi.h>
#include <signal.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace zc::mpi {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// Rank 0's word to the others that it has ended the job (a rank missing, the report written): under
// mpirun --enable-recovery its MPI_Abort does not end them, and they would wait out their barrier.
constexpr int kEndTag = 32000;  // MPI guarantees tags up to 32767; the rounds' tags stay far below

// Polls a non-blocking MPI operation until it completes or `deadline`: no rank ever sits in MPI
// without a bound. False on the deadline (the request is left pending: the job is ended then).
// watch_end: a rank other than 0 also leaves (exit status 1) when rank 0 says the job is over.
bool wait_request(MPI_Request& req, Clock::time_point deadline, bool watch_end = false);

// Now plus `seconds`, on the steady clock.
Clock::time_point after(double seconds);

// Says on stderr why this rank ends the job, then ends it (MPI_Abort).
[[noreturn]] void abort_job(int rank, const std::string& why);

// The signals a launcher ends a job with: Open MPI's mpirun sends SIGTERM to every rank as soon as one
// rank dies (then SIGKILL odls_base_sigkill_timeout, 1 s, later), Slurm after KillWait (30 s). Blocked
// in every thread (before MPI_Init, so its threads inherit the mask) and taken by the Watchdog's thread.
sigset_t launcher_signals();

// The last resort: a rank still running past the whole job's bound (something outside the bounded
// waits hung: a launcher, MPI_Finalize) says where it was and ends the job with MPI_Abort. It also
// takes the launcher's SIGTERM: the rank says where it was (its pairs of the round) before it goes,
// and rank 0 writes what it has (on_signal).
class Watchdog {
public:
    Watchdog(int rank, double seconds) : rank_(rank), deadline_(after(seconds)), thread_([this] { watch(); }) {}
    ~Watchdog() {
        {
            std::lock_guard lock(m_);
            done_ = true;
        }
        thread_.join();
    }
    void phase(const std::string& what) {
        std::lock_guard lock(m_);
        phase_ = what;
    }
    void phase(const std::string& what, double seconds) {  // with a bound of its own, from now
        std::lock_guard lock(m_);
        phase_ = what;
        deadline_ = after(seconds);
    }
    // Called on the launcher's signal, before the rank exits; an empty function removes it.
    void on_signal(std::function<void(const std::string& why)> hook) {
        std::lock_guard lock(hook_m_);
        hook_ = std::move(hook);
    }

private:
    void watch();
    int rank_;
    Clock::time_point deadline_;
    std::mutex m_, hook_m_;
    bool done_ = false;
    std::string phase_ = "start-up";
    std::function<void(const std::string&)> hook_;
    std::thread thread_;
};

}  // namespace zc::mpi
