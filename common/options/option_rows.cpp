#include "options/option_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "core/units.hpp"

namespace zc {

OptionRow flag(std::string names, bool& member, std::string help) {
    OptionRow r(std::move(names), std::move(help));
    r.add = [&member](CLI::App& app, OptionRow& row) { return app.add_flag(row.names, member, row.help); };
    return r;
}

OptionRow action(std::string names, std::string help, std::function<void()> given) {
    OptionRow r(std::move(names), std::move(help));
    // Not add_flag(names, help): CLI11 takes a non-const string there as the variable to set.
    r.add = [](CLI::App& app, OptionRow& row) { return app.add_flag(row.names)->description(row.help); };
    r.apply = [given = std::move(given)](const std::string&) { given(); };
    return r;
}

OptionRow text(std::string names, std::string help, std::function<void(const std::string&)> apply) {
    OptionRow r(std::move(names), std::move(help));
    r.apply = std::move(apply);
    return r;
}

OptionRow size_in(std::string names, uint64_t& member, uint64_t lo, uint64_t hi, std::string help, std::string bad) {
    std::string flag_name = names.substr(0, names.find(','));
    if (bad.empty()) bad = fmt::format("{} must be {}..{} bytes", flag_name, format_size(lo), format_size(hi));
    return text(std::move(names), std::move(help), [&member, lo, hi, bad](const std::string& t) {
        uint64_t v = parse_size(t);
        if (v < lo || v > hi) throw std::invalid_argument(bad);
        member = v;
    });
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        size_t c = s.find(',', start);
        out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
        if (c == std::string::npos) break;
        start = c + 1;
    }
    return out;
}

namespace {

void add_rows(CLI::App& app, OptionRows& rows) {
    for (OptionRow& row : rows) {
        row.option = row.add ? row.add(app, row) : app.add_option(row.names, row.text, row.help);
        if (!row.shown_default.empty()) row.option->default_str(row.shown_default);
        if (!row.kind.empty()) row.option->type_name(row.kind);
        if (!row.group.empty()) row.option->group(row.group);
        if (row.hidden) row.option->group("");
        // A typed row with choices takes only those (a text row's apply checks its names itself).
        if (row.add && !row.choices.empty()) row.option->check(CLI::IsMember(row.choices));
    }
    for (OptionRow& row : rows) {
        if (row.excludes.empty()) continue;
        CLI::Option* other = app.get_option_no_throw(row.excludes);
        if (!other) throw std::logic_error("option row " + row.names + " excludes unknown " + row.excludes);
        row.option->excludes(other);
    }
}

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '\t', ' ');
    return s;
}

}  // namespace

void list_rows(const CLI::App& app, const OptionRows& rows, std::ostream& out) {
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->get_group().empty()) continue;  // hidden
        auto row = std::find_if(rows.begin(), rows.end(), [&](const OptionRow& r) { return r.option == opt; });
        std::string choices;
        if (row != rows.end()) {
            for (const auto& c : row->choices) choices += (choices.empty() ? "" : ",") + c;
        }
        auto first = [](const std::vector<std::string>& v, const char* dashes) {
            return v.empty() ? std::string() : dashes + v.front();
        };
        // CLI11's type name carries its checks ("INT:INT in [1 - 256]"): the kind is the part before them.
        std::string kind = opt->get_type_size() == 0 ? "" : opt->get_type_name();
        kind = kind.substr(0, kind.find(':'));
        out << first(opt->get_lnames(), "--") << '\t' << first(opt->get_snames(), "-") << '\t' << kind << '\t'
            << choices << '\t' << opt->get_default_str() << '\t' << one_line(opt->get_description()) << '\n';
    }
}

int parse_rows(CLI::App& app, OptionRows& rows, int argc, char** argv, const std::function<void()>& check) {
    bool list = false;
    try {
        add_rows(app, rows);
        app.add_flag("--list-options", list, "print one line per option (for man pages and completion), then exit")
            ->group("");
        app.parse(argc, argv);
        if (list) {
            list_rows(app, rows, std::cout);
            return 0;
        }
        for (OptionRow& row : rows) {
            if (row.apply && row.option->count() > 0) row.apply(row.text);
        }
        if (check) check();
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << app.get_name() << ": " << e.what() << "\nRun '" << app.get_name()
                  << " --help' for the options and examples.\n";
        return 2;
    }
    return -1;
}

}  // namespace zc
