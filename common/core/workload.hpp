#pragma once
// What a test is and which side plays which role: the basic words every layer shares.
#include <span>
#include <string>

namespace zc {

// stream: client sends; maerts: server sends (netperf's names); rr: one message each way per
// transaction, the client asks and the server answers (netperf's TCP_RR); msgrate: the client sends
// small messages as fast as it can, one connection per thread, the server counts them.
// crr: a new connection per transaction: connect, request, response, close (netperf's TCP_CRR);
// cc: connect and close only (netperf's TCP_CC). Both count transactions like rr (tcp/crr_close.hpp).
enum class Workload { stream, maerts, rr, msgrate, crr, cc };
enum class Role { send, recv };

// Each workload once: its name and what it does, in the user's words (-t's help and its errors).
struct WorkloadRow {
    Workload workload;
    const char* name;
    const char* what;
};
std::span<const WorkloadRow> workload_rows();

const char* workload_name(Workload t);
Workload workload_from_name(const std::string& name);  // throws std::invalid_argument listing the rows
std::string workload_help();  // "stream (client sends), maerts (server sends), ... or cc (...)"
const char* role_name(Role r);
Role server_role(Workload t);
Role client_role(Workload t);  // rr: the client is the sender of requests, the server the responder
// rr and msgrate count messages (transactions) besides bytes, and run other loops (exchange_path.hpp).
inline bool is_connection_test(Workload t) { return t == Workload::crr || t == Workload::cc; }
inline bool is_message_test(Workload t) { return t == Workload::rr || t == Workload::msgrate || is_connection_test(t); }
// Counted in transactions, timed by the client per transaction (rr, crr, cc).
inline bool is_transaction_test(Workload t) { return t == Workload::rr || is_connection_test(t); }

}  // namespace zc
