#include "side_by_side.hpp"

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
    explicit StartTogether(const std::string& option) : option_(option) {}

    void arrive() {
        std::unique_lock lock(mu_);
        ++arrived_;
        cv_.notify_all();
        if (!cv_.wait_for(lock, std::chrono::seconds(30), [&] { return arrived_ == 2 || failed_; }))
            throw std::runtime_error(option_ + ": the other test was not ready within 30 s");
        if (failed_) throw std::runtime_error(option_ + ": the other test failed before the start");
    }
    void fail() {
        std::lock_guard lock(mu_);
        failed_ = true;
        cv_.notify_all();
    }

private:
    const std::string& option_;
    std::mutex mu_;
    std::condition_variable cv_;
    int arrived_ = 0;
    bool failed_ = false;
};

void run_one(const SideBySide& side, StartTogether& start, TestResult& out, std::exception_ptr& error) {
    try {
        out = run_test(side.control, side.spec, {{}, 1, [&] {
                                                     start.arrive();
                                                     if (side.at_start) side.at_start();
                                                 }});
    } catch (...) {
        error = std::current_exception();
        start.fail();
    }
}

}  // namespace

std::pair<TestResult, TestResult> run_side_by_side(const std::string& option, const SideBySide& a,
                                                   const SideBySide& b) {
    StartTogether start(option);
    TestResult out_a, out_b;
    std::exception_ptr error_a, error_b;
    std::thread other([&] { run_one(b, start, out_b, error_b); });
    run_one(a, start, out_a, error_a);
    other.join();
    if (error_a) std::rethrow_exception(error_a);
    if (error_b) std::rethrow_exception(error_b);
    return {std::move(out_a), std::move(out_b)};
}

}  // namespace zc
