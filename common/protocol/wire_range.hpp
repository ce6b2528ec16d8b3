#pragma once
// The range the wire accepts for a number field (its line in a field table, field_table.hpp), handed
// to the command line so that it refuses what the server would, with the range written once.
namespace zc {

template <class T>
struct WireRange {
    T lo, hi;
    // The command line's narrower floor where the wire's lowest value means "not given" (-n 0, -l 0).
    constexpr WireRange from(T floor) const { return {floor, hi}; }
};

}  // namespace zc
