#pragma once
// What every program that decodes a kind must know of it, as data: its transport rows, its report block and
// its parameters' field tables. A kind defines one, `kind_description_<kind>` in its folder's <kind>_kind.cpp,
// and the program's list of kinds (generated from common/kinds.cmake, compiled into each program) is the one
// place that names them all: kind_descriptions() is defined there. The lists built from it (transport_table(),
// kind_block_types(), kind_params_wires()) are made on first use, so no static initialiser's order matters.
// Its behaviour (operations tables, option group) is the kind's module, a layer above (kind/kind_module.hpp).
#include <span>
#include <string_view>

#include "core/transport_registry.hpp"

namespace zc {

struct KindBlockType;   // protocol/kind_block.hpp
struct KindParamsWire;  // protocol/kind_params_wire.hpp

struct KindDescription {
    const char* name;  // its folder's, common/<name>/: the order of the kinds is their names'
    // Rows are listed by (rank, kind name): the tcp kind's 0 puts tcp first (-T's default, Transport{}), 1 others.
    int rank = 1;
    std::span<const TransportInfo> rows;
    const KindBlockType& (*block)() = nullptr;                     // its report block; nullptr: none
    std::span<const KindParamsWire* const> (*params)() = nullptr;  // its parameters' field tables; nullptr: none
};

// Whether the row is one of that kind's (its `kind`, which transport_table() sets).
inline bool row_of_kind(const TransportInfo& row, std::string_view kind) { return row.kind && kind == row.kind; }

// Every kind of this program, in the list's order (by name). Defined by the generated list of kinds.
std::span<const KindDescription* const> kind_descriptions();

}  // namespace zc
