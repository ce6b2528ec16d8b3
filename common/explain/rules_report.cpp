#include "explain/rules_report.hpp"

#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "explain/categories.hpp"
#include "explain/source_files.hpp"

namespace zc {

namespace {
const char* kind_name(CategoryRule::Kind k) {
    switch (k) {
        case CategoryRule::exact:
            return "exact";
        case CategoryRule::prefix:
            return "prefix";
        case CategoryRule::contains:
            return "contains";
        case CategoryRule::module:
            return "module";
    }
    return "?";
}
}  // namespace

void write_category_rules(std::ostream& out, const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path + " (a kallsyms file: /proc/kallsyms, or a copy of it)");
    out << "# the category --explain gives each function of " << path << ", and the rule that decides it\n";
    for (const std::string& k : source_file_kernels()) out << "# source-file rules from: " << k << "\n";
    out << "# category\trule\tfunction\tsource file\n";
    std::map<std::string, size_t> by_rule;
    std::map<std::string, size_t> by_category;
    size_t functions = 0;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string address, type, name, module;
        if (!(fields >> address >> type >> name) || (type != "t" && type != "T")) continue;
        fields >> module;  // "[virtio_net]" or nothing
        const std::string function = module.empty() ? name : name + " " + module;
        const Classification c = classify_function(function);
        std::string rule = c.rule     ? std::string(kind_name(c.rule->kind)) + " " + std::string(c.rule->pattern)
                           : c.source ? "file " + std::string(c.source->path_prefix)
                                      : "none";
        out << category_key(c.category) << "\t" << rule << "\t" << function << "\t" << c.file << "\n";
        ++functions;
        ++by_rule[c.rule ? kind_name(c.rule->kind) : c.source ? "file" : "none"];
        ++by_category[category_key(c.category)];
    }
    if (functions == 0) throw std::runtime_error(path + " lists no text symbols: is it a kallsyms file?");
    out << "# " << functions << " functions; by rule:";
    for (const auto& [k, n] : by_rule) out << " " << k << " " << n;
    out << "; by category:";
    for (const auto& [k, n] : by_category) out << " " << k << " " << n;
    out << "\n";
}

}  // namespace zc
