#pragma once
// The server's side of one test: a data listener, the accepted streams, and the SideRunner that
// drives them, on a coordinator thread of its own so the control loop never blocks.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/messages.hpp"
#include "paths/data_setup.hpp"

namespace zc {

class TestRun {
public:
    using Notify = std::function<void(Message)>;  // called from the coordinator thread

    // Opens the data listener on `bind_address` (the address the client reached us on).
    // Throws std::runtime_error if it cannot.
    // `peer`: the client, as the other tests of this host see this one.
    TestRun(HalfSpec spec, const std::string& bind_address, std::set<int> exclude_pids, std::string host,
            std::string peer, Notify notify);
    TestRun(const TestRun&) = delete;
    TestRun& operator=(const TestRun&) = delete;
    ~TestRun();  // stops the test if it still runs and joins every thread

    uint16_t data_port() const { return port_; }
    uint64_t token() const { return token_; }
    void start();  // the client asked to begin
    void stop();   // the client asked to end early: it is told so with an error

private:
    void coordinate();

    HalfSpec spec_;
    std::set<int> exclude_pids_;
    std::string host_;
    std::string peer_;
    Notify notify_;
    std::unique_ptr<DataListener> listener_;  // until the streams are in (coordinate() may keep it longer)
    uint16_t port_ = 0;
    std::string fd_note_;  // --flows: the open-file limit raised for this test, for its report
    uint64_t token_ = 0;
    std::mutex mu_;
    std::condition_variable cv_;
    bool start_requested_ = false;
    std::atomic<bool> stopped_{false};
    std::atomic<bool> silent_{false};     // being destroyed: nobody to tell
    class SideRunner* runner_ = nullptr;  // owned by the coordinator thread; guarded by mu_ for stop()
    // The finished test's data connections, open until this run is destroyed (the session keeps it until
    // the client's next test or its goodbye). The client reads its side's connections only once our result
    // reached it, and a connection this side closed first is no longer whole there: the kernel closes a
    // multipath connection's subflows (the client read its first one back as 0.0.0.0 with no bytes, 1 lab
    // run in 4; see the multipath kind's doc).
    std::vector<DataConnection> ended_connections_;
    std::thread coordinator_;
};

}  // namespace zc
