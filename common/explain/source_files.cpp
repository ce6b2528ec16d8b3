#include "explain/source_files.hpp"

#include <zlib.h>

#include <stdexcept>
#include <unordered_map>

namespace zc {

namespace {

// The path table: common/explain/source_rules.tsv (embedded), parsed on first use.
const std::vector<SourceRule>& table() {
    static const std::vector<SourceRule> rules = [] {
        std::vector<SourceRule> r;
        std::string_view rest = embedded_source_rules();
        while (!rest.empty()) {
            const size_t nl = rest.find('\n');
            std::string_view line = rest.substr(0, nl);
            rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
            if (line.empty() || line[0] == '#') continue;
            const size_t tab = line.find('\t');
            std::string_view key = line.substr(tab + 1);
            key = key.substr(0, key.find('\t'));  // a '#' comment may follow
            size_t i = 0;
            while (i < kCategoryCount && key != category_names()[i].key) ++i;
            const bool inherit = key == category_key(Category::inherit);  // a helper: its caller's work
            if (tab == std::string_view::npos || (i == kCategoryCount && !inherit))
                throw std::logic_error("source_rules.tsv: bad line: " + std::string(line));
            r.push_back({line.substr(0, tab), inherit ? Category::inherit : static_cast<Category>(i)});
        }
        return r;
    }();
    return rules;
}

struct Data {
    std::vector<std::string> text;  // the inflated files (the index's views point into them)
    std::vector<std::string> kernels;
    std::unordered_map<std::string_view, std::vector<std::string_view>> files_of;
};

std::string inflate_gzip(const EmbeddedKernelFile& f) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
    z.next_in = const_cast<unsigned char*>(f.begin);
    z.avail_in = static_cast<uInt>(f.end - f.begin);
    std::string out;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<unsigned char*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error(std::string("zlib: cannot inflate the embedded ") + f.name);
    return out;
}

const Data& data() {
    static const Data d = [] {
        Data d;
        for (const auto& f : embedded_kernel_files()) d.text.push_back(inflate_gzip(f));
        for (const std::string& t : d.text) {
            std::string_view rest(t);
            bool first = true;
            while (!rest.empty()) {
                size_t nl = rest.find('\n');
                std::string_view line = rest.substr(0, nl);
                rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
                if (line.empty()) continue;
                if (line[0] == '#') {
                    if (first) d.kernels.emplace_back(line.substr(line.find_first_not_of("# ")));
                    first = false;
                    continue;
                }
                size_t tab = line.find('\t');
                if (tab == std::string_view::npos) continue;
                auto& files = d.files_of[line.substr(0, tab)];
                std::string_view file = line.substr(tab + 1);
                bool known = false;
                for (std::string_view x : files) known = known || x == file;
                if (!known) files.push_back(file);
            }
        }
        return d;
    }();
    return d;
}

}  // namespace

const std::vector<SourceRule>& source_rules() { return table(); }

const SourceRule* source_rule_of_path(std::string_view path) {
    for (const SourceRule& r : table())
        if (path.substr(0, r.path_prefix.size()) == r.path_prefix) return &r;
    return nullptr;
}

std::vector<std::string> source_file_kernels() { return data().kernels; }

const std::vector<std::string_view>& source_files_of(std::string_view name) {
    static const std::vector<std::string_view> none;
    const Data& d = data();
    auto it = d.files_of.find(name);
    return it == d.files_of.end() ? none : it->second;
}

bool source_decision(std::string_view name, SourceDecision& out) {
    const auto& files = source_files_of(name);
    if (files.empty()) return false;
    const SourceRule* first = source_rule_of_path(files.front());
    if (first == nullptr) return false;
    for (std::string_view f : files) {
        const SourceRule* r = source_rule_of_path(f);
        if (r == nullptr || r->category != first->category) return false;  // files of several kinds: no answer
    }
    out = {first->category, files.front(), first};
    return true;
}

}  // namespace zc
