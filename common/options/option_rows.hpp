#pragma once
// A program's command-line options as rows, one per option: its names, what its value is, its help and
// where it lands (neper's one-line flag definitions are the model). The rows drive CLI11 (the parser and
// --help), turn texts (sizes, lists of names) into their members after parsing, and print the hidden
// --list-options listing that man pages and shell completion are made from. Adding an option is adding
// one row (docs/structure.md, "Adding an option").
#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace zc {

struct OptionRow {
    OptionRow(std::string n, std::string h) : names(std::move(n)), help(std::move(h)) {}

    std::string names;  // as CLI11 takes them: "-P,--streams"
    std::string help;
    // Typed rows: CLI11 parses (and range-checks) the value into the member itself.
    std::function<CLI::Option*(CLI::App&, OptionRow&)> add;
    // Text rows: the text given, turned into the member(s) after parsing, in row order (so a row may read
    // the members of rows above it); throws std::invalid_argument in the user's words.
    std::function<void(const std::string&)> apply;
    std::string kind;                  // the value's name in --help and --list-options ("" = CLI11's: INT, TEXT)
    std::vector<std::string> choices;  // the names the value (or each item of a list) may take; empty: any
    std::string shown_default;         // a text row's default as --help shows it ("" = none)
    std::string excludes;              // the name of a row it cannot be given with
    bool hidden = false;               // testing knobs: neither in --help nor in --list-options
    std::string group;                 // --help's section for it ("" = OPTIONS, the common rows)
    std::string text;                  // a text row's argument, as given
    CLI::Option* option = nullptr;     // set by add_rows

    OptionRow&& choose(std::vector<std::string> names) && { return choices = std::move(names), std::move(*this); }
    OptionRow&& shows(std::string d) && { return shown_default = std::move(d), std::move(*this); }
    OptionRow&& value_kind(std::string k) && { return kind = std::move(k), std::move(*this); }
    OptionRow&& excluding(std::string name) && { return excludes = std::move(name), std::move(*this); }
    OptionRow&& hide() && { return hidden = true, std::move(*this); }
};
using OptionRows = std::vector<OptionRow>;

// A range of a number no wire table carries (a client-only option's).
template <class T>
struct Bounds {
    T lo, hi;
};

// A flag: present = true.
OptionRow flag(std::string names, bool& member, std::string help);
// A flag that does something when given (after the text rows above it).
OptionRow action(std::string names, std::string help, std::function<void()> given);

// A value CLI11 parses into the member (a number, a string, a list of strings); --help shows its default.
template <class T>
OptionRow value(std::string names, T& member, std::string help) {
    OptionRow r(std::move(names), std::move(help));
    r.add = [&member](CLI::App& app, OptionRow& row) {
        CLI::Option* opt = app.add_option(row.names, member, row.help);
        if constexpr (!CLI::detail::is_mutable_container<T>::value) opt->capture_default_str();
        return opt;
    };
    return r;
}

// A number that must lie in range.lo..range.hi (anything with lo and hi: the wire table's range,
// protocol/wire_range.hpp, so the command line refuses what the server would).
template <class T, class Range>
OptionRow value_in(std::string names, T& member, Range range, std::string help) {
    OptionRow r(std::move(names), std::move(help));
    r.add = [&member, range](CLI::App& app, OptionRow& row) {
        return app.add_option(row.names, member, row.help)
            ->check(CLI::Range(static_cast<T>(range.lo), static_cast<T>(range.hi)))
            ->capture_default_str();
    };
    return r;
}

// A text turned into its member(s) by `apply` after parsing, only when given.
OptionRow text(std::string names, std::string help, std::function<void(const std::string&)> apply);

// A byte count ("64K", "1M"), in [lo, hi]; `bad` is the error for one outside (default: "NAME must be LO..HI bytes").
OptionRow size_in(std::string names, uint64_t& member, uint64_t lo, uint64_t hi, std::string help,
                  std::string bad = "");

// Adds the rows and a hidden --list-options to app, parses argv, applies the text rows, then runs `check`
// (which throws std::invalid_argument for a bad combination). Returns the exit code when parsing ends the
// program (--help, --version, --list-options: 0; a bad option: 2, after saying what is wrong and pointing at
// --help), or -1 to go on.
int parse_rows(CLI::App& app, OptionRows& rows, int argc, char** argv, const std::function<void()>& check = {});

// --list-options: one line per option, tab-separated: long name, short name, value kind ("" for a flag),
// allowed values (comma-separated), default, help on one line. Hidden rows are left out; --help and
// --version (CLI11's own) are in.
void list_rows(const CLI::App& app, const OptionRows& rows, std::ostream& out);

// Each value of an enum by its name, from the first to `last`: a row's choices (-t's test names).
template <class E, class Name>
std::vector<std::string> enum_names(E last, Name name) {
    std::vector<std::string> out;
    for (int i = 0; i <= static_cast<int>(last); ++i) out.emplace_back(name(static_cast<E>(i)));
    return out;
}

// The names of a table's rows (each with a `name`): a row's choices where the values are a table.
template <class Rows>
std::vector<std::string> row_names(const Rows& rows) {
    std::vector<std::string> out;
    for (const auto& r : rows) out.emplace_back(r.name);
    return out;
}

// "a,b,c" -> {"a", "b", "c"}; "" -> {""} (so an empty item is refused by whoever parses it).
std::vector<std::string> split_commas(const std::string& s);

}  // namespace zc
