#include "core/transport_registry.hpp"

#include "core/kind_description.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace zc {

const std::vector<TransportInfo>& transport_table() {
    static const std::vector<TransportInfo> table = [] {
        std::vector<const KindDescription*> kinds(kind_descriptions().begin(), kind_descriptions().end());
        std::stable_sort(kinds.begin(), kinds.end(), [](const KindDescription* a, const KindDescription* b) {
            return a->rank != b->rank ? a->rank < b->rank : std::string_view(a->name) < b->name;
        });
        std::vector<TransportInfo> rows;
        for (const KindDescription* k : kinds)
            for (TransportInfo row : k->rows) {
                row.id = static_cast<Transport>(rows.size());
                row.kind = k->name;
                rows.push_back(row);
            }
        for (TransportInfo& row : rows)
            if (!row.copy_path) row.copy_path = rows.front().name;
        return rows;
    }();
    return table;
}

std::vector<std::string> available_transports() {
    std::vector<std::string> out;
    for (const auto& t : transport_table())
        if (t.built) out.emplace_back(t.name);
    return out;
}

bool transport_built(Transport t) { return transport_info(t).built; }

Transport transport_from_name(std::string_view name) {
    std::string known;
    for (const auto& t : transport_table()) {
        if (name == t.name && t.built) return t.id;
        if (name == t.name)
            throw std::invalid_argument("transport '" + std::string(name) +
                                        "' is not in this build: " + not_built_reason(t));
        if (!t.built) continue;
        known += known.empty() ? "" : ", ";
        known += t.name;
    }
    throw std::invalid_argument("unknown transport '" + std::string(name) + "'; this build has: " + known);
}

const TransportInfo& transport_info(Transport t) {
    const auto& table = transport_table();
    if (static_cast<size_t>(t) < table.size()) return table[static_cast<size_t>(t)];
    throw std::logic_error("transport " + std::to_string(static_cast<int>(t)) + " has no row in transport_table()");
}

const char* transport_name(Transport t) { return transport_info(t).name; }

Transport transport_named(std::string_view name) {
    for (const auto& t : transport_table())
        if (name == t.name) return t.id;
    throw std::logic_error("no transport row is named '" + std::string(name) + "'");
}

const ExampleRows& example_rows() {
    static const ExampleRows rows = [] {
        const char* copy = transport_table().front().name;
        auto first = [copy](SendBuffer b) {
            for (const auto& t : transport_table())
                if (t.send_buffer == b && std::string_view(t.copy_path) == copy) return t.name;
            return copy;
        };
        return ExampleRows{copy, first(SendBuffer::zc_ring), first(SendBuffer::file)};
    }();
    return rows;
}

std::string not_built_reason(const TransportInfo& t) {
    if (t.built) return "";
    return t.needs ? t.needs : "this build lacks what it needs";
}

std::string transport_help() {
    std::string text, missing;
    for (const auto& t : transport_table()) {
        if (!t.built) {
            missing += (missing.empty() ? "" : ", ") + std::string(t.name);
            continue;
        }
        std::string name = t.name;
        text += "\n  " + name + std::string(name.size() < 15 ? 15 - name.size() : 1, ' ') + t.summary;
    }
    if (!missing.empty()) text += "\n  not in this build: " + missing;
    return text;
}

namespace {
constexpr const char* kRxNames[] = {"copy", "zerocopy", "splice", "trunc", "mmsg", "gro"};
}

const char* rx_mode_name(RxMode m) { return kRxNames[static_cast<int>(m)]; }

RxMode rx_mode_from_name(std::string_view name) {
    for (int i = 0; i < static_cast<int>(std::size(kRxNames)); ++i)
        if (name == kRxNames[i]) return static_cast<RxMode>(i);
    std::string known;
    for (const char* n : kRxNames) known += (known.empty() ? "" : ", ") + std::string(n);
    throw std::invalid_argument("unknown receive mode '" + std::string(name) + "'; the modes are " + known +
                                " (--help's --rx says which transports take each)");
}

}  // namespace zc
