// The RDMA kinds' report block (rdma/rdma_info.hpp): its codec through the block's table
// (an older peer's block, a malformed one), its human line and CSV cells (the columns' old names), the
// words a message test takes from it, and what it gives the side's memory section (rdma/rdma_block.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../transport_built.hpp"
#include "rdma/rdma_block.hpp"
#include "kind/transport_ops.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/kind_block.hpp"
#include "rdma/rdma_info.hpp"
#include "protocol/result.hpp"
#include "report/report_writer.hpp"
#include "run/gpu_placement.hpp"

namespace zc {
namespace {

using nlohmann::json;

// A verbs side: its device, QPs, CQ mode, registration and posts.
RdmaInfo verbs_block() {
    RdmaInfo r;
    r.device = "rxe0";
    r.provider = "rxe";
    r.port = 1;
    r.gid_index = 1;
    r.mtu = 4096;
    r.link_layer = "Ethernet (RoCE)";
    r.qps = 2;
    r.cq_mode = "poll";
    r.registration_ms = 1.25;
    r.registered_bytes = 8u << 20;
    r.credit_waits = 17;
    r.data_sends = 80;
    r.post_calls = 10;
    r.inline_sends = 80;
    r.max_inline = 64;
    r.contexts_opened = 1;
    r.thread_domains = 2;
    r.doorbell_env = {{"MLX5_SHUT_UP_BF", "1"}, {"MLX5_SINGLE_THREADED", "1"}};
    return r;
}

// A side as the side runner and the kinds write it (memory_report, then write_rdma_block), the wire takes it.
SideResult side_with(const RdmaInfo& r, uint64_t message_size = 4096, BufferSpec buffer = {}) {
    HalfSpec h;
    h.message_size = message_size;
    h.side.buffer = buffer;
    SideResult s;
    s.cpu.ncpus = 2;
    s.memory = memory_report(h.side, message_size, {});
    write_rdma_block(h, r, s);
    return s;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

// Two sides that agree on their messages (rr or msgrate), each with the block given (none when null).
MessageResult messages_over(Workload test, Transport t, const RdmaInfo* block, const std::string& path = "") {
    SideResult c, s;
    for (SideResult* side : {&c, &s}) {
        side->elapsed_s = 1.0;
        side->messages.messages = 100;
        side->messages.stream_messages = {100};
        side->path = path;
        if (block) side->kinds[rdma_block_type().key] = to_json(*block);
    }
    c.role = Role::send;
    s.role = Role::recv;
    return message_result(test, t, 8, c, s, 1.0);
}

TEST(RdmaBlock, IsRegisteredUnderTheWiresKeyAndWrittenByTheRdmaKinds) {
    EXPECT_EQ(std::string(rdma_block_type().key), "rdma");
    const auto& types = kind_block_types();
    EXPECT_NE(std::find(types.begin(), types.end(), &rdma_block_type()), types.end())
        << "rdma_info.cpp registers the rdma block beside its codec";
    EXPECT_TRUE(side_with(verbs_block()).kinds.contains("rdma"));
    REQUIRE_RDMA_BUILT();  // the tables: only where rdma-core was found
    for (Transport t : {transport_named("rsocket"), transport_named("rsocket-iomap"), transport_named("rdma-write"),
                        transport_named("rdma-send"), transport_named("rdma-read")})
        EXPECT_NE(transport_ops(t).kind_block, nullptr) << transport_name(t);
    EXPECT_NE(transport_ops(transport_named("rsocket-iomap")).loop_counts,
              nullptr);  // its ring's registration, per loop
}

TEST(RdmaBlock, RoundTripsThroughTheBlockTableAndAWholeSide) {
    const RdmaInfo a = verbs_block();
    const json wire = to_json(a);
    EXPECT_EQ(rdma_block_type().decode(wire), wire);  // made whole: nothing lost, nothing added
    // At the side's top level under "rdma", as SideResult::rdma was: an older peer reads it as before.
    json side = to_json(side_with(a));
    ASSERT_TRUE(side.contains("rdma"));
    EXPECT_EQ(side["rdma"]["device"], "rxe0");
    EXPECT_EQ(side["rdma"]["cq_mode"], "poll");
    SideResult back = side_result_from_json(side);
    ASSERT_TRUE(back.kinds.contains("rdma"));
    RdmaInfo b = rdma_info_from_json(back.kinds.at("rdma"));
    EXPECT_EQ(b.device, "rxe0");
    EXPECT_EQ(b.mtu, 4096);
    EXPECT_EQ(b.qps, 2u);
    EXPECT_EQ(b.post_calls, 10u);
    EXPECT_EQ(b.doorbell_env, a.doorbell_env);
    SideResult none;
    none.cpu.ncpus = 2;
    EXPECT_FALSE(to_json(none).contains("rdma"));  // a side of another kind: no block, none made up
}

TEST(RdmaBlock, AnOlderPeersBlockWithoutTheNewerFieldsKeepsTheirDefaults) {
    json wire = to_json(verbs_block());
    for (const char* f : {"gpu_path", "gpu_path_note", "stage_slots", "contexts_opened", "max_inline", "inline_sends",
                          "data_sends", "post_calls", "rr_wait", "provider", "thread_domains", "doorbell_env"})
        wire.erase(f);  // the first RDMA release sent none of these
    RdmaInfo b = rdma_info_from_json(rdma_block_type().decode(wire));
    EXPECT_EQ(b.device, "rxe0");
    EXPECT_EQ(b.credit_waits, 17u);
    EXPECT_TRUE(b.provider.empty() && b.rr_wait.empty() && b.doorbell_env.empty());
    EXPECT_EQ(b.post_calls + b.data_sends + b.inline_sends + b.contexts_opened + b.thread_domains, 0u);
    json side = to_json(side_with(verbs_block()));
    side["rdma"] = wire;  // through a whole side, as an older server's result arrives
    EXPECT_EQ(rdma_info_from_json(side_result_from_json(side).kinds.at("rdma")).max_inline, 0u);
}

TEST(RdmaBlock, AMalformedBlockIsAProtocolError) {
    json missing = to_json(verbs_block());
    missing.erase("device");  // required: every peer with RDMA sent it
    EXPECT_THROW(rdma_block_type().decode(missing), ProtocolError);
    json wrong = to_json(verbs_block());
    wrong["mtu"] = "big";
    EXPECT_THROW(rdma_block_type().decode(wrong), ProtocolError);
    json range = to_json(verbs_block());
    range["port"] = 300;
    EXPECT_THROW(rdma_block_type().decode(range), ProtocolError);
    EXPECT_THROW(rdma_block_type().decode(json::array()), ProtocolError);
    json side = to_json(side_with(verbs_block()));
    side["rdma"] = 3;
    EXPECT_THROW(side_result_from_json(side), ProtocolError);
}

TEST(RdmaBlock, HumanLineIsTheSidesRdmaLine) {
    RdmaInfo a = verbs_block();
    a.doorbell_env.clear();
    a.thread_domains = 0;
    a.contexts_opened = 0;
    a.rr_wait = "receive completion";
    EXPECT_EQ(joined(kind_block_lines(side_with(a))),
              "rdma: rxe0 port 1 (provider rxe), GID index 1, MTU 4096, Ethernet (RoCE), 2 QPs, CQ poll (busy-polling "
              "shows as user time); registration 1.25 ms for 8388608 B, outside the interval; 17 waits for receiver "
              "credits; 80 data WRs in 10 ibv_post_send calls, 80 inline (max_inline 64); arrival seen by receive "
              "completion\n");
    EXPECT_EQ(joined(kind_block_lines(side_with(RdmaInfo{}))),  // rsend/rrecv, its device not found
              "rdma: rsockets; rsockets register their own buffers at connection time\n");
}

TEST(RdmaBlock, CsvKeepsTheColumnNamesTheyHadAsSideColumns) {
    const std::string header = kind_blocks_csv_header("local_");
    EXPECT_NE(header.find("local_rdma_device,local_rdma_port,local_rdma_gid_index,local_rdma_mtu,local_rdma_link_layer,"
                          "local_cq_mode,local_qps,local_registration_ms,local_registered_bytes,local_credit_waits,"
                          "local_rdma_provider,local_thread_domains,local_doorbell_env,local_contexts_opened"),
              std::string::npos)
        << header;
    const KindBlockType& t = rdma_block_type();
    EXPECT_EQ(t.csv_cells(to_json(verbs_block())),
              (std::vector<std::string>{"rxe0", "1", "1", "4096", "Ethernet (RoCE)", "poll", "2", "1.250", "8388608",
                                        "17", "rxe", "2", "MLX5_SHUT_UP_BF=1 MLX5_SINGLE_THREADED=1", "1"}));
    ASSERT_EQ(t.csv_cells(to_json(verbs_block())).size(), t.csv_columns().size());
    // The whole report: each column named once, and a side without the block leaves them empty.
    TestResult r;
    r.transport = transport_named("rdma-write");
    r.local = side_with(verbs_block());
    r.remote.role = Role::recv;
    std::ostringstream os;
    auto w = make_csv_report(os);
    w->begin({});
    w->add(r);
    std::string head = os.str().substr(0, os.str().find('\n'));
    std::set<std::string> names;
    for (size_t at = 0, end; at <= head.size(); at = end + 1) {
        end = std::min(head.find(',', at), head.size());
        EXPECT_TRUE(names.insert(head.substr(at, end - at)).second) << "twice: " << head.substr(at, end - at);
    }
    EXPECT_TRUE(names.contains("remote_cq_mode"));
    EXPECT_EQ(kind_blocks_csv_cells({}).find_first_not_of(','), std::string::npos);
}

TEST(RdmaBlock, MessageTestsTakeTheirWordsFromTheBlockAndTcpFromTheRow) {
    RdmaInfo verbs = verbs_block();
    MessageResult m = messages_over(Workload::msgrate, transport_named("rdma-write"), &verbs, "rdma-write");
    EXPECT_FALSE(m.stream_segments);
    EXPECT_EQ(m.measured,
              "one RDMA WRITE work request each, up to 8 chained per ibv_post_send (10 calls for 80 requests), 80 "
              "posted inline (max_inline 64); the receiver checks each message's pattern and returns credits; CQ poll");
    verbs.rr_wait = "receive completion";
    EXPECT_EQ(messages_over(Workload::rr, transport_named("rdma-send"), &verbs).measured,
              "arrival seen by receive completion; 80 of 80 messages posted inline (max_inline 64); CQ poll");
    const RdmaInfo rsockets;  // no CQ of ours: rsockets post for themselves
    m = messages_over(Workload::rr, transport_named("rsocket"), &rsockets);
    EXPECT_FALSE(m.stream_segments);
    EXPECT_EQ(m.measured, "rsend/rrecv (rsockets: copied through their registered buffers)");
    // TCP is the row's word, not the want of a block: an RDMA side without one is no TCP side, and MPTCP is.
    EXPECT_FALSE(messages_over(Workload::rr, transport_named("rdma-send"), nullptr).stream_segments);
    EXPECT_TRUE(messages_over(Workload::rr, transport_named("mptcp"), nullptr).stream_segments);
    EXPECT_TRUE(messages_over(Workload::rr, transport_named("tls"), nullptr).stream_segments);
    EXPECT_FALSE(messages_over(Workload::rr, transport_named("udp"), nullptr).stream_segments);
}

TEST(RdmaBlock, GpuMemoryTakesWhatTheRegistrationDecided) {
    const BufferSpec gpu{MemoryKind::sim_gpu, 0};
    RdmaInfo staged = verbs_block();
    staged.gpu_path = "staged";
    staged.gpu_path_note = "direct refused: ibv_reg_dmabuf_mr: Operation not supported";
    staged.stage_slots = 8;
    MemoryReport m = side_with(staged, 65536, gpu).memory;
    EXPECT_EQ(m.gpu_path, "staged");
    EXPECT_EQ(m.gpu_path_note, staged.gpu_path_note);
    EXPECT_EQ(m.stage_slot_bytes, 65536u);  // one message per bounce slot
    EXPECT_EQ(m.stage_slots, 8);
    EXPECT_EQ(m.stage_batch, 1u);
    RdmaInfo direct = verbs_block();
    direct.gpu_path = "direct";
    m = side_with(direct, 65536, gpu).memory;
    EXPECT_EQ(m.gpu_path, "direct");
    EXPECT_EQ(m.stage_slot_bytes + m.stage_batch, 0u);  // nothing staged
    EXPECT_EQ(m.stage_slots, 0);
    // rsockets register nothing of GPU memory themselves: the socket paths' staging stays.
    m = side_with(RdmaInfo{}, 65536, gpu).memory;
    EXPECT_EQ(m.gpu_path, "staged");
    SideSpec socket_side;
    socket_side.buffer = gpu;
    EXPECT_EQ(m.gpu_path_note, memory_report(socket_side, 65536, {}).gpu_path_note);
    EXPECT_TRUE(side_with(direct).memory.gpu_path.empty());  // host memory: no GPU path, whatever the block says
}

}  // namespace
}  // namespace zc
