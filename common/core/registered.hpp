#pragma once
// The tables modules add rows to from their static initialisers (a kind's option group, its parameters'
// field table): one list per row type, in registration order. A function's static, so that initialisers of
// other files may run first, in any order.
#include <vector>

namespace zc {

template <class Row>
std::vector<const Row*>& registered() {
    static std::vector<const Row*> all;
    return all;
}

// Adds the row (which must live as long as the program: a namespace-scope constant); true, for
// `const bool kRegistered = register_row(kMyRow);`.
template <class Row>
bool register_row(const Row& row) {
    registered<Row>().push_back(&row);
    return true;
}

}  // namespace zc
