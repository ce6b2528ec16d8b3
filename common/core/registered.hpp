#pragma once
// The tables the kinds add rows to from their static initialisers (a kind's report block, its option group,
// its parameters' field table): one list per row type, kept in the order of the rows' names (a block's key, a
// group's title, a wire's key), whatever order the initialisers ran in, so what a list drives (the CSV's kind
// columns, the human report's kind lines, --help's kind sections) has one order, the same in every program.
// A function's static, so that initialisers of other files may run first, in any order.
#include <algorithm>
#include <string_view>
#include <vector>

namespace zc {

template <class Row>
std::vector<const Row*>& registered() {
    static std::vector<const Row*> all;
    return all;
}

// Adds the row (which must live as long as the program: a namespace-scope constant) in the place of its name,
// the member `name`; a row of a name already there is not added again. true, for
// `const bool kRegistered = register_row(kMyRow, &MyRow::key);`.
template <class Row>
bool register_row(const Row& row, const char* Row::*name) {
    auto& all = registered<Row>();
    const std::string_view n = row.*name;
    auto at = std::lower_bound(all.begin(), all.end(), n,
                               [&](const Row* r, std::string_view key) { return std::string_view(r->*name) < key; });
    if (at == all.end() || std::string_view((*at)->*name) != n) all.insert(at, &row);
    return true;
}

}  // namespace zc
