#include "protocol/kind_block.hpp"

#include <algorithm>

#include "core/kind_description.hpp"
#include "protocol/kind_params_wire.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/result.hpp"

namespace zc {

namespace {
std::string csv_quoted(const std::string& cell) {
    if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
    std::string out = "\"";
    for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

const nlohmann::json* find_block(const KindBlocks& blocks, const char* key) {
    auto it = blocks.find(key);
    return it == blocks.end() ? nullptr : &it->second;
}

std::string csv_prefix_of(const KindBlockType& t) { return t.csv_prefix ? t.csv_prefix : std::string(t.key) + "_"; }
}  // namespace

namespace {
// The kinds' rows of one type (their blocks, their parameters' field tables), in the order of their keys.
template <class Row>
std::vector<const Row*> sorted_by_key(std::vector<const Row*> rows, const char* Row::*key) {
    std::sort(rows.begin(), rows.end(),
              [&](const Row* a, const Row* b) { return std::string_view(a->*key) < b->*key; });
    return rows;
}
}  // namespace

const std::vector<const KindBlockType*>& kind_block_types() {
    static const std::vector<const KindBlockType*> all = [] {
        std::vector<const KindBlockType*> rows;
        for (const KindDescription* k : kind_descriptions())
            if (k->block) rows.push_back(&k->block());
        return sorted_by_key(std::move(rows), &KindBlockType::key);
    }();
    return all;
}

const std::vector<const KindParamsWire*>& kind_params_wires() {
    static const std::vector<const KindParamsWire*> all = [] {
        std::vector<const KindParamsWire*> rows;
        for (const KindDescription* k : kind_descriptions())
            if (k->params)
                for (const KindParamsWire* w : k->params()) rows.push_back(w);
        return sorted_by_key(std::move(rows), &KindParamsWire::key);
    }();
    return all;
}

namespace {
bool is_flat(const std::string& key) {
    const auto& types = kind_block_types();
    auto it = std::find_if(types.begin(), types.end(), [&](const KindBlockType* t) { return key == t->key; });
    return it != types.end() && (*it)->flat;
}
}  // namespace

void kind_blocks_to_json(const KindBlocks& blocks, nlohmann::json& side) {
    for (const auto& [key, block] : blocks) {
        if (is_flat(key) && block.is_object())
            side.update(block);
        else
            side[key] = block;
    }
}

KindBlocks kind_blocks_from_json(const nlohmann::json& side) {
    KindBlocks out;
    if (!side.is_object()) return out;
    for (const KindBlockType* t : kind_block_types()) {
        if (t->flat) {
            if (nlohmann::json b = t->decode(side); !b.is_null()) out[t->key] = std::move(b);
        } else if (side.contains(t->key)) {
            out[t->key] = t->decode(side.at(t->key));
        }
    }
    return out;
}

std::vector<std::string> kind_block_lines(const SideResult& side) {
    std::vector<std::string> lines;
    for (const KindBlockType* t : kind_block_types())
        if (const auto* b = find_block(side.kinds, t->key))
            for (auto& l : t->human_lines(*b, side)) lines.push_back(std::move(l));
    return lines;
}

std::string kind_blocks_csv_header(const std::string& side_prefix) {
    std::string out;
    for (const KindBlockType* t : kind_block_types())
        for (const auto& c : t->csv_columns()) out += (out.empty() ? "" : ",") + side_prefix + csv_prefix_of(*t) + c;
    return out;
}

std::string kind_blocks_csv_cells(const KindBlocks& blocks) {
    std::string out;
    bool first = true;
    for (const KindBlockType* t : kind_block_types()) {
        const auto* b = find_block(blocks, t->key);
        std::vector<std::string> cells = b ? t->csv_cells(*b) : std::vector<std::string>(t->csv_columns().size());
        for (const auto& c : cells) {
            out += (first ? "" : ",") + csv_quoted(c);
            first = false;
        }
    }
    return out;
}

std::vector<std::string> kind_block_notes(const KindBlocks& sender, const KindBlocks& receiver) {
    std::vector<std::string> notes;
    for (const KindBlockType* t : kind_block_types()) {
        const auto *tx = find_block(sender, t->key), *rx = find_block(receiver, t->key);
        if (!t->check_sides || (!tx && !rx)) continue;
        for (auto& n : t->check_sides(tx, rx))
            if (!n.empty()) notes.push_back(std::move(n));
    }
    return notes;
}

bool kind_block_counts_losses(const SideResult& side) {
    for (const KindBlockType* t : kind_block_types())
        if (t->count_problem && find_block(side.kinds, t->key)) return true;
    return false;
}

std::optional<std::string> kind_block_count_problem(const SideResult& sender, const SideResult& receiver) {
    for (const KindBlockType* t : kind_block_types()) {
        const auto *tx = find_block(sender.kinds, t->key), *rx = find_block(receiver.kinds, t->key);
        if (t->count_problem && tx && rx) return t->count_problem(*tx, sender.bytes, *rx, receiver.bytes);
    }
    return std::nullopt;
}

std::string kind_block_messages_measured(const SideResult& side, Workload test, uint32_t batch) {
    for (const KindBlockType* t : kind_block_types()) {
        const auto* b = find_block(side.kinds, t->key);
        if (!b || !t->messages_measured) continue;
        if (std::string words = t->messages_measured(*b, side, test, batch); !words.empty()) return words;
    }
    return "";
}

namespace {
// The blocks' notes of one hook (a block's text by its json), in the kinds' order, `between` each two.
std::string joined_notes(const KindBlocks& blocks, std::string (*KindBlockType::*hook)(const nlohmann::json&),
                         const char* between) {
    std::string out;
    for (const KindBlockType* t : kind_block_types()) {
        const auto* b = find_block(blocks, t->key);
        if (!b || !(t->*hook)) continue;
        if (std::string note = (t->*hook)(*b); !note.empty()) out += (out.empty() ? "" : between) + note;
    }
    return out;
}
}  // namespace

std::string kind_block_label_note(const KindBlocks& blocks) {
    return joined_notes(blocks, &KindBlockType::label_note, ", ");
}

std::string kind_block_method_note(const KindBlocks& blocks) {
    return joined_notes(blocks, &KindBlockType::method_note, "; ");
}

std::string kind_blocks_interval_text(const KindBlocks* local, const KindBlocks* remote) {
    std::string out;
    for (const KindBlockType* t : kind_block_types()) {
        const auto *l = local ? find_block(*local, t->key) : nullptr,
                   *r = remote ? find_block(*remote, t->key) : nullptr;
        if (!t->interval_text || (!l && !r)) continue;
        if (std::string text = t->interval_text(l, r); !text.empty()) out += " | " + text;
    }
    return out;
}

std::string kind_blocks_interval_csv_header(const std::string& side_prefix) {
    std::string out;
    for (const KindBlockType* t : kind_block_types())
        if (t->interval_csv_columns)
            for (const auto& c : t->interval_csv_columns()) out += "," + side_prefix + csv_prefix_of(*t) + c;
    return out;
}

std::string kind_blocks_interval_csv_cells(const KindBlocks* blocks) {
    std::string out;
    for (const KindBlockType* t : kind_block_types()) {
        if (!t->interval_csv_columns) continue;
        const auto* b = blocks ? find_block(*blocks, t->key) : nullptr;
        auto cells = b && t->interval_csv_cells ? t->interval_csv_cells(*b)
                                                : std::vector<std::string>(t->interval_csv_columns().size());
        for (const auto& c : cells) out += "," + csv_quoted(c);
    }
    return out;
}

}  // namespace zc
