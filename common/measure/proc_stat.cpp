#include "measure/proc_stat.hpp"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace zc {

namespace {

bool parse_line(std::string_view line, CpuTicks& out) {
    if (line.substr(0, 3) != "cpu") return false;
    size_t pos = 3;
    out.cpu = -1;
    if (pos < line.size() && line[pos] != ' ') {
        int n = 0;
        auto [end, ec] = std::from_chars(line.data() + pos, line.data() + line.size(), n);
        if (ec != std::errc()) return false;
        out.cpu = n;
        pos = static_cast<size_t>(end - line.data());
    }
    uint64_t* fields[] = {&out.user,   &out.nice, &out.system,  &out.idle,
                          &out.iowait, &out.irq,  &out.softirq, &out.steal};
    for (uint64_t* f : fields) {
        while (pos < line.size() && line[pos] == ' ') ++pos;
        if (pos >= line.size()) {
            *f = 0;  // old kernels have fewer columns
            continue;
        }
        auto [end, ec] = std::from_chars(line.data() + pos, line.data() + line.size(), *f);
        if (ec != std::errc()) return false;
        pos = static_cast<size_t>(end - line.data());
    }
    return true;
}

uint64_t sub(uint64_t a, uint64_t b) { return a >= b ? a - b : 0; }

CpuTicks diff_ticks(const CpuTicks& b, const CpuTicks& a) {
    CpuTicks d;
    d.cpu = a.cpu;
    d.user = sub(a.user, b.user);
    d.nice = sub(a.nice, b.nice);
    d.system = sub(a.system, b.system);
    d.idle = sub(a.idle, b.idle);
    d.iowait = sub(a.iowait, b.iowait);  // iowait may go backwards on some kernels: clamp
    d.irq = sub(a.irq, b.irq);
    d.softirq = sub(a.softirq, b.softirq);
    d.steal = sub(a.steal, b.steal);
    return d;
}

}  // namespace

ProcStat parse_proc_stat(std::string_view text) {
    ProcStat ps;
    bool have_all = false;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        CpuTicks t;
        if (parse_line(line, t)) {
            if (t.cpu < 0) {
                ps.all = t;
                have_all = true;
            } else {
                ps.per_cpu.push_back(t);
            }
        }
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    if (!have_all) throw std::runtime_error("/proc/stat has no aggregate 'cpu' line");
    return ps;
}

ProcStat read_proc_stat(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_proc_stat(ss.str());
}

ProcStat diff(const ProcStat& before, const ProcStat& after) {
    ProcStat d;
    d.all = diff_ticks(before.all, after.all);
    for (const auto& a : after.per_cpu) {
        for (const auto& b : before.per_cpu) {
            if (b.cpu == a.cpu) {
                d.per_cpu.push_back(diff_ticks(b, a));
                break;
            }
        }
    }
    return d;
}

std::optional<uint64_t> read_oom_kills(const std::string& vmstat) {
    std::ifstream in(vmstat);
    std::string name;
    for (uint64_t value = 0; in >> name >> value;)
        if (name == "oom_kill") return value;
    return std::nullopt;
}

}  // namespace zc
