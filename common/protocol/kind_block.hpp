#pragma once
// A transport kind's own block of a side's result, registered by the kind's module (seastar's components
// each register their metrics group; neper's report is the test's own function). The kind fills its block
// at the end of a side's run (TransportOps::kind_block) from its own counters and the kernel; SideResult
// holds the blocks by key, as JSON, so result.cpp, the report writers and the side runner reach a block
// through this table and name no kind. Nothing here runs inside a hot loop: blocks are made at the end.
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/workload.hpp"

namespace zc {

struct SideResult;  // protocol/result.hpp: the side a block belongs to, for hooks that read its generic figures

// A side's blocks, by their key (each kind's JSON key in the side's result).
using KindBlocks = std::map<std::string, nlohmann::json>;

struct KindBlockType {
    const char* key;  // its JSON key in a side's result; its CSV columns are prefixed "<side>_<key>_"
    // The wire's block made whole: decoded into the kind's struct (a field an older peer left out keeps its
    // default) and encoded again. Throws ProtocolError when malformed or out of range.
    nlohmann::json (*decode)(const nlohmann::json& wire);
    // The human report's lines for one side's block (no indentation; the writer indents them). `side` is the
    // side it belongs to, for the side's own figures a line puts beside the block's (its calls, its role).
    std::vector<std::string> (*human_lines)(const nlohmann::json& block, const SideResult& side);
    // CSV: the column names (after the prefix) and one side's cells, as many, in order.
    std::vector<std::string> (*csv_columns)();
    std::vector<std::string> (*csv_cells)(const nlohmann::json& block);
    // One test's two sides (either may be null: a side without the block): what does not add up, as the
    // test's warnings ("" none). nullptr: nothing to compare.
    std::vector<std::string> (*check_sides)(const nlohmann::json* sender, const nlohmann::json* receiver) = nullptr;
    // A kind whose data may be lost on the way (datagrams): its two sides' counts add up (what arrived and what
    // was lost is what was sent) rather than match, and it checks them: what does not add up ("" nothing), which
    // fails the test. The side that sees what arrived counts the messages. nullptr: the sides' bytes must match.
    std::string (*count_problem)(const nlohmann::json& sender, uint64_t sender_bytes, const nlohmann::json& receiver,
                                 uint64_t receiver_bytes) = nullptr;
    // Flat: the block's fields sit at the side's top level, not under `key` (the TCP family's, whose fields
    // were the side's own before they were its block: the wire kept them where they were). decode then reads
    // the whole side and returns null where the side holds none of them.
    bool flat = false;
    // What follows the side's prefix in its columns' names: nullptr, the key and "_" (local_udp_lost); a
    // block whose columns kept the names they had before it was one gives "" and names them whole.
    const char* csv_prefix = nullptr;
    // A message test (rr, msgrate) on a kind that counts its own calls (not a TCP socket's): how its
    // messages were posted and seen arriving, in words (MessageResult::measured). nullptr: none to say.
    std::string (*messages_measured)(const nlohmann::json& block, const SideResult& side, Workload test,
                                     uint32_t batch) = nullptr;
    // What the kind adds to a message test's words on how it was measured (nullptr or "": nothing): crr's
    // close method.
    std::string (*method_note)(const nlohmann::json& block) = nullptr;
    // A few words the test's first line carries after the transport's name when the side's figures are not
    // what the kind's name promises (the smc kind's "TCP fallback"); nullptr or "": none.
    std::string (*label_note)(const nlohmann::json& block) = nullptr;
    // --interval: the kind's block of one side's interval (SideInterval::kinds, the kind's interval_block
    // made it from two readings), in the same codec. The live line's words on a row's two blocks (either may
    // be null; "" nothing), and the --csv-intervals columns (after the side's prefix and csv_prefix) and one
    // side's cells. nullptr: the kind has no interval block.
    std::string (*interval_text)(const nlohmann::json* local, const nlohmann::json* remote) = nullptr;
    std::vector<std::string> (*interval_csv_columns)() = nullptr;
    std::vector<std::string> (*interval_csv_cells)(const nlohmann::json& block) = nullptr;
};

// A kind whose block is one struct with its two codecs: its hooks read the struct, and kind_block_type<kOf>()
// makes the KindBlockType whose decode is to_json(from_json(wire)) and whose hooks decode the block first.
template <class Side>
struct KindBlockOf {
    const char* key;
    nlohmann::json (*to_json)(const Side&);
    Side (*from_json)(const nlohmann::json&);  // throws ProtocolError
    std::vector<std::string> (*human_lines)(const Side&, const SideResult& side);
    std::vector<std::string> (*csv_columns)();
    std::vector<std::string> (*csv_cells)(const Side&);
    // Called only when both sides have the block (one side alone has nothing to compare); nullptr: none.
    std::vector<std::string> (*check_sides)(const Side& sender, const Side& receiver) = nullptr;
    std::string (*count_problem)(const Side& sender, uint64_t sender_bytes, const Side& receiver,
                                 uint64_t receiver_bytes) = nullptr;  // KindBlockType's
    bool flat = false;                                                // KindBlockType::flat
    const char* csv_prefix = nullptr;                                 // as KindBlockType's
    std::string (*messages_measured)(const Side&, const SideResult& side, Workload test, uint32_t batch) = nullptr;
    // KindBlockType's method note and interval hooks (a side without the interval's block reads as Side{});
    // nullptr: none.
    std::string (*method_note)(const Side& block) = nullptr;
    std::string (*label_note)(const Side& block) = nullptr;
    std::string (*interval_text)(const Side& local, const Side& remote) = nullptr;
    std::vector<std::string> (*interval_csv_columns)() = nullptr;
    std::vector<std::string> (*interval_csv_cells)(const Side& block) = nullptr;
};

namespace kind_block_detail {
// Whether an optional hook was given (through a parameter: the compiler warns on a known function's address).
template <class F>
constexpr bool given(F hook) {
    return hook != nullptr;
}

template <const auto& Of>
struct Hooks {
    static nlohmann::json decode(const nlohmann::json& wire) { return Of.to_json(Of.from_json(wire)); }
    static std::vector<std::string> human_lines(const nlohmann::json& b, const SideResult& side) {
        return Of.human_lines(Of.from_json(b), side);
    }
    static std::vector<std::string> csv_cells(const nlohmann::json& b) { return Of.csv_cells(Of.from_json(b)); }
    static std::vector<std::string> check_sides(const nlohmann::json* sender, const nlohmann::json* receiver) {
        if (!sender || !receiver) return {};
        return Of.check_sides(Of.from_json(*sender), Of.from_json(*receiver));
    }
    static std::string count_problem(const nlohmann::json& sender, uint64_t sender_bytes,
                                     const nlohmann::json& receiver, uint64_t receiver_bytes) {
        return Of.count_problem(Of.from_json(sender), sender_bytes, Of.from_json(receiver), receiver_bytes);
    }
    static std::string messages_measured(const nlohmann::json& b, const SideResult& side, Workload test,
                                         uint32_t batch) {
        return Of.messages_measured(Of.from_json(b), side, test, batch);
    }
    static std::string method_note(const nlohmann::json& b) { return Of.method_note(Of.from_json(b)); }
    static std::string label_note(const nlohmann::json& b) { return Of.label_note(Of.from_json(b)); }
    static std::string interval_text(const nlohmann::json* local, const nlohmann::json* remote) {
        using Side = decltype(Of.from_json(nlohmann::json()));
        return Of.interval_text(local ? Of.from_json(*local) : Side{}, remote ? Of.from_json(*remote) : Side{});
    }
    static std::vector<std::string> interval_csv_cells(const nlohmann::json& b) {
        return Of.interval_csv_cells(Of.from_json(b));
    }
};
}  // namespace kind_block_detail

template <const auto& Of>
constexpr KindBlockType kind_block_type() {
    using H = kind_block_detail::Hooks<Of>;
    return {.key = Of.key,
            .decode = H::decode,
            .human_lines = H::human_lines,
            .csv_columns = Of.csv_columns,
            .csv_cells = H::csv_cells,
            .check_sides = kind_block_detail::given(Of.check_sides) ? H::check_sides : nullptr,
            .count_problem = kind_block_detail::given(Of.count_problem) ? H::count_problem : nullptr,
            .flat = Of.flat,
            .csv_prefix = Of.csv_prefix,
            .messages_measured = kind_block_detail::given(Of.messages_measured) ? H::messages_measured : nullptr,
            .method_note = kind_block_detail::given(Of.method_note) ? H::method_note : nullptr,
            .label_note = kind_block_detail::given(Of.label_note) ? H::label_note : nullptr,
            .interval_text = kind_block_detail::given(Of.interval_text) ? H::interval_text : nullptr,
            .interval_csv_columns = Of.interval_csv_columns,
            .interval_csv_cells = kind_block_detail::given(Of.interval_csv_cells) ? H::interval_csv_cells : nullptr};
}

// Every kind's block (its description's, core/kind_description.hpp), in the order of their keys: the order of
// the CSV's kind columns and the human report's kind lines.
const std::vector<const KindBlockType*>& kind_block_types();

// The generic halves the result and the reports call.
void kind_blocks_to_json(const KindBlocks& blocks, nlohmann::json& side);
KindBlocks kind_blocks_from_json(const nlohmann::json& side);        // the registered keys it holds; ProtocolError
std::vector<std::string> kind_block_lines(const SideResult& side);   // its blocks' lines, in their keys' order
std::string kind_blocks_csv_header(const std::string& side_prefix);  // "" when no kind registers a block
std::string kind_blocks_csv_cells(const KindBlocks& blocks);         // as many cells as the header's columns
std::vector<std::string> kind_block_notes(const KindBlocks& sender, const KindBlocks& receiver);
// Whether the side's kind counts data that may be lost on the way (one of its blocks has count_problem).
bool kind_block_counts_losses(const SideResult& side);
// The two sides' counts as their kind's block checks them (count_problem: "" they add up); nullopt where no
// block of both sides checks them (then the sides' bytes must match).
std::optional<std::string> kind_block_count_problem(const SideResult& sender, const SideResult& receiver);
// A message test's words from the first of the side's blocks that has them ("" none): messages_measured.
std::string kind_block_messages_measured(const SideResult& side, Workload test, uint32_t batch);
std::string kind_block_method_note(const KindBlocks& blocks);  // the blocks' method_notes, "; " between
std::string kind_block_label_note(const KindBlocks& blocks);   // the blocks' label_notes, ", " between
// --interval rows: the kinds' words on a row's two sides' blocks (each led by " | "; a side may be null),
// the --csv-intervals columns (each led by its comma) and one side's cells (empty where it has no block).
std::string kind_blocks_interval_text(const KindBlocks* local, const KindBlocks* remote);
std::string kind_blocks_interval_csv_header(const std::string& side_prefix);
std::string kind_blocks_interval_csv_cells(const KindBlocks* blocks);

}  // namespace zc
