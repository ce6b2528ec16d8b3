#pragma once
// --explain's result on the wire and in the JSON report.
#include <nlohmann/json.hpp>

#include "explain/explain_result.hpp"

namespace zc {

nlohmann::json to_json(const ExplainSide& e);
ExplainSide explain_side_from_json(const nlohmann::json& j);  // throws ProtocolError
// The category whose key is `key`, or false when it names none (a newer peer's category).
bool category_from_key(std::string_view key, Category& out);

}  // namespace zc
