#pragma once
// TCP_INFO and the socket settings in a result and an interval: their JSON, one field table each
// (field_table.hpp), so the server's figures cross the wire bounded and named like every other.
#include <nlohmann/json.hpp>
#include <vector>

#include "core/tcp_stats.hpp"

namespace zc {

nlohmann::json to_json(const TcpSample& s);
TcpSample tcp_sample_from_json(const nlohmann::json& j);  // throws ProtocolError
nlohmann::json to_json(const TcpTuningInForce& t);
TcpTuningInForce tcp_tuning_from_json(const nlohmann::json& j);

// A list of per-stream samples (at most kMaxStreams x the flows of a stream).
nlohmann::json to_json(const std::vector<TcpSample>& v);
std::vector<TcpSample> tcp_samples_from_json(const nlohmann::json& j, const char* name);

}  // namespace zc
