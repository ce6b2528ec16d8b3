#include "kind/kind_module.hpp"

#include "options/kind_options.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace zc {

namespace {

// Every kind's tables, in the kinds' order.
std::vector<KindTable> all_tables() {
    std::vector<KindTable> out;
    for (const KindModule* m : kind_modules()) out.insert(out.end(), m->tables.begin(), m->tables.end());
    return out;
}
const std::vector<KindTable>& tables() {
    static const std::vector<KindTable> all = all_tables();
    return all;
}

constexpr RxModeRow kCopyOnly{RxMode::copy, "recv"};

// "copy, zerocopy or trunc": the modes a row's kind takes.
std::string modes_of(const TransportInfo& t) {
    std::span<const RxModeRow> rows = transport_ops(t.id).rx_modes;
    if (rows.empty()) return "copy";
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i)
        out += (i == 0 ? "" : i + 1 == rows.size() ? " or " : ", ") + std::string(rx_mode_name(rows[i].mode));
    return out;
}

}  // namespace

const TransportOps& transport_ops(Transport t) {
    const TransportInfo& row = transport_info(t);
    for (const KindModule* m : kind_modules())
        if (std::string_view(m->description->name) == row.kind && row.table < m->tables.size())
            return *m->tables[row.table].ops;
    throw std::runtime_error(std::string(row.name) + " is not in this build: " + not_built_reason(row));
}

const std::vector<const KindOptionGroup*>& kind_option_groups() {
    static const std::vector<const KindOptionGroup*> all = [] {
        std::vector<const KindOptionGroup*> groups;
        for (const KindModule* m : kind_modules()) groups.insert(groups.end(), m->options.begin(), m->options.end());
        std::sort(groups.begin(), groups.end(), [](const KindOptionGroup* a, const KindOptionGroup* b) {
            return std::string_view(a->title) < b->title;
        });
        return groups;
    }();
    return all;
}

const RxModeRow* rx_mode_row(const TransportInfo& t, RxMode mode) {
    for (const RxModeRow& r : transport_ops(t.id).rx_modes)
        if (r.mode == mode) return &r;
    return mode == RxMode::copy ? &kCopyOnly : nullptr;
}

std::string rx_mode_help() {
    // Kinds that share one table of modes (tls and ktls run tcp's receivers) are named together, once.
    auto same_modes = [](const KindTable& a, const KindTable& b) {
        return a.ops->rx_modes.data() == b.ops->rx_modes.data() && a.ops->rx_modes.size() == b.ops->rx_modes.size();
    };
    std::string out;
    for (auto k = tables().begin(); k != tables().end(); ++k) {
        if (k->ops->rx_modes.empty() ||
            std::any_of(tables().begin(), k, [&](const KindTable& e) { return same_modes(e, *k); }))
            continue;
        out += out.empty() ? "" : "; ";
        std::string names;
        for (auto e = k; e != tables().end(); ++e)
            if (same_modes(*e, *k)) names += (names.empty() ? "" : ", ") + std::string(e->name);
        out += names + ":";
        for (const RxModeRow& r : k->ops->rx_modes)
            out +=
                std::string(&r == &k->ops->rx_modes.front() ? " " : ", ") + rx_mode_name(r.mode) + " (" + r.how + ")";
    }
    return out + "; the others: copy";
}

std::vector<std::string> rx_mode_choices() {
    std::vector<std::string> out;
    for (const KindTable& k : tables()) {
        for (const RxModeRow& r : k.ops->rx_modes)
            if (std::find(out.begin(), out.end(), rx_mode_name(r.mode)) == out.end())
                out.push_back(rx_mode_name(r.mode));
    }
    return out;
}

std::string rx_mode_problem(const HalfSpec& half) {
    const TransportInfo& t = transport_info(half.transport);
    if (rx_mode_row(t, half.rx)) return "";
    return std::string(t.name) + " receives with --rx " + modes_of(t) + "; --rx " + rx_mode_name(half.rx) +
           " is for -T " + transport_names_where([&](const TransportInfo& r) { return rx_mode_row(r, half.rx); });
}

}  // namespace zc
