// The CSV report: one header, one row per result, cells found by column name.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "rdma/rdma_info.hpp"
#include "tcp/tcp_report.hpp"
#include "report/report_writer.hpp"

using namespace zc;

namespace {

// Splits one CSV line (RFC 4180 quoting: "" inside quotes is a quote).
std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            out.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

std::map<std::string, std::string> csv_row(const TestResult& r) {
    std::ostringstream os;
    auto w = make_csv_report(os);
    w->begin({});
    w->add(r);
    w->end();
    std::istringstream in(os.str());
    std::string head, row;
    std::getline(in, head);
    std::getline(in, row);
    auto names = cells(head), values = cells(row);
    EXPECT_EQ(names.size(), values.size()) << head << "\n" << row;
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) m[names[i]] = values[i];
    return m;
}

}  // namespace

TEST(CsvReport, RdmaColumnsCarryEachSidesDeviceAndCosts) {
    TestResult r;
    r.transport = transport_named("rdma-write");
    r.local.role = Role::send;
    r.remote.role = Role::recv;
    auto rdma = [](const char* device, int port, int gid, int mtu, const char* link, const char* cq, double reg_ms,
                   uint64_t reg_bytes, uint64_t credit_waits) {
        RdmaInfo i;
        i.device = device;
        i.port = port;
        i.gid_index = gid;
        i.mtu = mtu;
        i.link_layer = link;
        i.cq_mode = cq;
        i.qps = 4;
        i.registration_ms = reg_ms;
        i.registered_bytes = reg_bytes;
        i.credit_waits = credit_waits;
        return i;
    };
    const std::string key = rdma_block_type().key;  // the RDMA kinds' block (rdma/rdma_info.hpp)
    r.local.kinds[key] = to_json(rdma("rxe0", 1, 1, 4096, "Ethernet", "poll", 1.25, 8u << 20, 17));
    r.remote.kinds[key] = to_json(rdma("mlx5_0", 2, 3, 1024, "InfiniBand", "event", 0.5, 64u << 20, 0));
    auto m = csv_row(r);
    EXPECT_EQ(m["transport"], "rdma-write");
    EXPECT_EQ(m["local_rdma_device"], "rxe0");
    EXPECT_EQ(m["local_rdma_port"], "1");
    EXPECT_EQ(m["local_rdma_gid_index"], "1");
    EXPECT_EQ(m["local_rdma_mtu"], "4096");
    EXPECT_EQ(m["local_rdma_link_layer"], "Ethernet");
    EXPECT_EQ(m["local_cq_mode"], "poll");
    EXPECT_EQ(m["local_qps"], "4");
    EXPECT_EQ(m["local_registration_ms"], "1.250");
    EXPECT_EQ(m["local_registered_bytes"], std::to_string(8u << 20));
    EXPECT_EQ(m["local_credit_waits"], "17");
    EXPECT_EQ(m["remote_rdma_device"], "mlx5_0");
    EXPECT_EQ(m["remote_rdma_link_layer"], "InfiniBand");
    EXPECT_EQ(m["remote_cq_mode"], "event");
    EXPECT_EQ(m["remote_rdma_mtu"], "1024");
    EXPECT_EQ(m["local_rdma_provider"], "");
    EXPECT_EQ(m["local_thread_domains"], "0");
}

TEST(CsvReport, RdmaProviderThreadDomainsAndDoorbellEnvPerSide) {
    TestResult r;
    r.transport = transport_named("rdma-write");
    r.local.role = Role::send;
    r.remote.role = Role::recv;
    RdmaInfo local, remote;
    local.device = "mlx5_0";
    local.provider = "mlx5";
    local.thread_domains = 16;
    local.doorbell_env = {{"MLX5_SHUT_UP_BF", "1"}, {"MLX5_SINGLE_THREADED", "1"}};
    local.contexts_opened = 1;
    remote.device = "rxe0";
    remote.provider = "rxe";
    r.local.kinds[rdma_block_type().key] = to_json(local);
    r.remote.kinds[rdma_block_type().key] = to_json(remote);
    auto m = csv_row(r);
    EXPECT_EQ(m["local_rdma_provider"], "mlx5");
    EXPECT_EQ(m["local_thread_domains"], "16");
    EXPECT_EQ(m["local_doorbell_env"], "MLX5_SHUT_UP_BF=1 MLX5_SINGLE_THREADED=1");
    EXPECT_EQ(m["remote_rdma_provider"], "rxe");
    EXPECT_EQ(m["remote_thread_domains"], "0");
    EXPECT_EQ(m["remote_doorbell_env"], "");
    EXPECT_EQ(m["local_contexts_opened"], "1");  // the sweep's sharing ratio: streams / contexts
}

TEST(CsvReport, TcpRowsLeaveRdmaCellsEmptyAndCarryTheWakeThreshold) {
    TestResult r;
    r.local.role = Role::send;
    r.remote.role = Role::recv;
    TcpSideReport tx, rx;  // the TCP block's columns keep the names they had as the side's
    tx.settings.congestion = rx.settings.congestion = "cubic";
    rx.rcv_lowat = 256 << 10;
    r.local.kinds[tcp_block_type().key] = to_json(tx);
    r.remote.kinds[tcp_block_type().key] = to_json(rx);
    auto m = csv_row(r);
    EXPECT_EQ(m["transport"], "tcp");
    EXPECT_EQ(m["remote_rcv_lowat"], "262144");
    EXPECT_EQ(m["local_rcv_lowat"], "0");
    EXPECT_EQ(m["local_tcp_congestion"], "cubic");
    for (const char* c : {"local_rdma_device", "local_cq_mode", "remote_qps", "remote_registration_ms"}) {
        EXPECT_EQ(m[c], "") << c;
    }
}
