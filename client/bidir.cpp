#include "bidir.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "run_driver.hpp"

namespace zc {

namespace {

// Two parties meet before their test starts; if one fails first, the other is told instead of waiting.
class StartTogether {
public:
    void arrive() {
        std::unique_lock lock(mu_);
        ++arrived_;
        cv_.notify_all();
        if (!cv_.wait_for(lock, std::chrono::seconds(30), [&] { return arrived_ == 2 || failed_; }))
            throw std::runtime_error("--bidir: the other direction was not ready within 30 s");
        if (failed_) throw std::runtime_error("--bidir: the other direction failed before the start");
    }
    void fail() {
        std::lock_guard lock(mu_);
        failed_ = true;
        cv_.notify_all();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    int arrived_ = 0;
    bool failed_ = false;
};

}  // namespace

std::pair<TestResult, TestResult> run_bidir(ControlClient& forward, ControlClient& reverse, const TestSpec& spec) {
    TestSpec twin = spec;
    twin.test = TestKind::maerts;
    StartTogether start;
    TestResult back;
    std::exception_ptr back_error;
    std::thread other([&] {
        try {
            back = run_test(reverse, twin, {{}, 1, [&] { start.arrive(); }});
        } catch (...) {
            back_error = std::current_exception();
            start.fail();
        }
    });
    TestResult out;
    std::exception_ptr out_error;
    try {
        out = run_test(forward, spec, {{}, 1, [&] { start.arrive(); }});
    } catch (...) {
        out_error = std::current_exception();
        start.fail();
    }
    other.join();
    if (out_error) std::rethrow_exception(out_error);
    if (back_error) std::rethrow_exception(back_error);
    double sum = out.throughput_gbps + back.throughput_gbps;
    out.bidir_with = test_name(back.test);
    back.bidir_with = test_name(out.test);
    out.bidir_sum_gbps = back.bidir_sum_gbps = sum;
    return {std::move(out), std::move(back)};
}

}  // namespace zc
