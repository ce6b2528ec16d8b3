// The crr and cc loops on loopback, two initiators and two responders sharing one listener
// as zcserver runs them: both sides count the same transactions, the histograms hold one sample each,
// the goodbyes end every responder, and both close methods run.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/stream_counters.hpp"
#include "tcp/tcp_crr.hpp"
#include "tcp/tcp_socket.hpp"

using namespace zc;

namespace {

struct Totals {
    uint64_t client = 0, server = 0, whole_samples = 0, connect_samples = 0, client_bytes = 0, server_bytes = 0;
    int errors = 0;
};

Totals run_pairs(const CrrShape& shape, int pairs, double seconds) {
    auto [listener, port] = listen_tcp("127.0.0.1", 0, 1024);
    set_receive_timeout(listener.get(), std::chrono::seconds(5));
    std::vector<UniqueFd> anchors, accepted;
    for (int i = 0; i < pairs; ++i) {
        anchors.push_back(connect_tcp(Endpoint{"127.0.0.1", port}, std::chrono::seconds(2)));
        accepted.emplace_back(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    }
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.deadline_ns = monotonic_ns() + static_cast<int64_t>(seconds * 1e9);
    std::vector<LatencyHistogram> whole(pairs), connect(pairs);  // connect: copied from each initiator
    std::vector<StreamCounters> c(pairs), s(pairs);
    std::vector<std::thread> threads;
    std::vector<UniqueFd> listeners;
    for (int i = 0; i < pairs; ++i) listeners.emplace_back(::dup(listener.get()));
    for (int i = 0; i < pairs; ++i) {
        threads.emplace_back([&, i] {
            TcpCrrResponder r(listeners[i].get(), shape);
            s[i] = r.run(stop);
        });
        threads.emplace_back([&, i] {
            TcpCrrInitiator in(anchors[i].get(), shape, whole[i]);
            c[i] = in.run(stop);
            connect[i] = in.connect_latency();
        });
    }
    for (auto& t : threads) t.join();
    Totals t;
    for (int i = 0; i < pairs; ++i) {
        t.client += c[i].messages;
        t.server += s[i].messages;
        t.client_bytes += c[i].bytes;
        t.server_bytes += s[i].bytes;
        t.whole_samples += whole[i].count();
        t.connect_samples += connect[i].count();
        t.errors += (c[i].error != 0) + (s[i].error != 0);
        if (c[i].error) ADD_FAILURE() << "initiator " << c[i].failed_call << ": " << c[i].error;
        if (s[i].error) ADD_FAILURE() << "responder " << s[i].failed_call << ": " << s[i].error;
    }
    return t;
}

TEST(CrrLoops, BothSidesCountTheSameTransactionsAndEveryResponderEnds) {
    for (CrrClose close : {CrrClose::rst, CrrClose::fin}) {
        CrrShape shape;
        shape.message_size = 100;
        shape.close = close;
        Totals t = run_pairs(shape, 2, 0.3);
        SCOPED_TRACE(crr_close_name(close));
        EXPECT_EQ(t.errors, 0);
        EXPECT_GE(t.client, 2u);
        EXPECT_EQ(t.client, t.server);
        EXPECT_EQ(t.whole_samples, t.client);
        EXPECT_EQ(t.connect_samples, t.client);
        EXPECT_EQ(t.client_bytes, t.client * 100);
        EXPECT_EQ(t.server_bytes, t.client * 100);
    }
}

TEST(CcLoops, ConnectAndCloseOnlyAndTheOneByteGoodbyeEndsTheResponders) {
    for (CrrClose close : {CrrClose::rst, CrrClose::fin}) {
        CrrShape shape;
        shape.with_data = false;
        shape.close = close;
        Totals t = run_pairs(shape, 2, 0.3);
        SCOPED_TRACE(crr_close_name(close));
        EXPECT_EQ(t.errors, 0);
        EXPECT_GE(t.client, 2u);
        EXPECT_EQ(t.client, t.server);
        EXPECT_EQ(t.client_bytes, 0u);
    }
}

TEST(CrrLoops, AResponderWhosePeerNeverComesEndsAtItsReceiveTimeout) {
    auto [listener, port] = listen_tcp("127.0.0.1", 0, 4);
    set_receive_timeout(listener.get(), std::chrono::milliseconds(200));
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    TcpCrrResponder r(listener.get(), CrrShape{});
    auto t0 = monotonic_ns();
    StreamCounters c = r.run(stop);
    EXPECT_LT(monotonic_ns() - t0, 3'000'000'000);
    EXPECT_EQ(c.error, EAGAIN);
    EXPECT_STREQ(c.failed_call, "accept");
}

}  // namespace
