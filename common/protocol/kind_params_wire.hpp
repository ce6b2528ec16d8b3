#pragma once
// The wire half of a kind's parameters (core/kind_params.hpp): the kind's own field table, its fields flat in
// the setup message beside kTestParamFields' (run_spec.cpp), sent only for a transport whose kind takes them.
// An older server ignores fields it does not know; an older client's silence keeps the defaults. The kind's
// description lists one per struct (so the fuzz target, which links every kind's codecs, decodes it too), and
// run_spec.cpp names no kind.
#include <nlohmann/json.hpp>
#include <vector>

#include "core/kind_params.hpp"
#include "core/transport_registry.hpp"

namespace zc {

struct TestParams;  // protocol/run_spec.hpp

struct KindParamsWire {
    const char* key;  // the struct's KindParamsKey name
    // Held per side (SideSpec::kind_params: each side's own, --rdma-dev LOCAL,REMOTE), else per test
    // (TestParams::kind_params, both sides the same).
    bool per_side = false;
    bool (*takes)(const TransportInfo& row) = nullptr;  // the rows whose sides read them
    void (*encode)(const KindParams& params, nlohmann::json& spec) = nullptr;
    // Range-checked (ProtocolError naming the field); an absent field keeps its default.
    void (*decode)(const nlohmann::json& spec, KindParams& params) = nullptr;
    // The kind's defaults that depend on the test (its size, its transport), for what the command line left
    // unset: the client's side_half (run_spec.hpp) calls it before the half runs or is sent. nullptr: none.
    void (*resolve)(const TestParams& test, KindParams& params) = nullptr;
};

// Every kind's (its description's params, core/kind_description.hpp), in the order of their keys.
const std::vector<const KindParamsWire*>& kind_params_wires();

}  // namespace zc
