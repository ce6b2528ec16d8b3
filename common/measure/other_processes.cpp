#include "measure/other_processes.hpp"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

namespace zc {

namespace {
constexpr uint64_t kPfKthread = 0x00200000;  // include/linux/sched.h
}

bool parse_pid_stat(std::string_view text, int& pid, ProcessTicks& out) {
    size_t open = text.find('(');
    size_t close = text.rfind(')');  // comm may itself hold ')' or spaces
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    auto [pe, pec] = std::from_chars(text.data(), text.data() + open, pid);
    if (pec != std::errc()) {
        // leading spaces are not expected; treat as malformed
        return false;
    }
    out.comm = std::string(text.substr(open + 1, close - open - 1));
    // Fields after ')': 3 state, 4 ppid, ..., 9 flags, ..., 14 utime, 15 stime, 16 cutime, 17 cstime.
    std::string_view rest = text.substr(close + 1);
    uint64_t f[18] = {};
    int field = 3;
    size_t pos = 0;
    while (field <= 17) {
        while (pos < rest.size() && rest[pos] == ' ') ++pos;
        if (pos >= rest.size()) return false;
        size_t end = rest.find(' ', pos);
        if (end == std::string_view::npos) end = rest.size();
        if (field >= 9) {
            int64_t v = 0;  // cutime/cstime are signed in the kernel's format
            auto [p, ec] = std::from_chars(rest.data() + pos, rest.data() + end, v);
            if (ec != std::errc()) return false;
            f[field] = v < 0 ? 0 : static_cast<uint64_t>(v);
        }
        pos = end;
        ++field;
    }
    if (f[9] & kPfKthread) return false;
    out.ticks = f[14] + f[15];
    return true;
}

ProcessTable read_process_table(const std::string& proc_root) {
    ProcessTable table;
    DIR* dir = opendir(proc_root.c_str());
    if (!dir) return table;
    while (dirent* e = readdir(dir)) {
        if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
        std::ifstream in(proc_root + "/" + e->d_name + "/stat");
        std::string line;
        if (!std::getline(in, line)) continue;  // the process exited meanwhile
        int pid = 0;
        ProcessTicks t;
        if (parse_pid_stat(line, pid, t)) table.emplace(pid, std::move(t));
    }
    closedir(dir);
    return table;
}

OtherLoad other_load(const ProcessTable& before, const ProcessTable& after, const std::set<int>& exclude,
                     long ticks_per_s, size_t top_n) {
    OtherLoad load;
    for (const auto& [pid, a] : after) {
        if (exclude.count(pid)) continue;
        uint64_t used = a.ticks;
        auto it = before.find(pid);
        if (it != before.end() && it->second.comm == a.comm)
            used = a.ticks >= it->second.ticks ? a.ticks - it->second.ticks : 0;
        if (used == 0) continue;
        double s = static_cast<double>(used) / static_cast<double>(ticks_per_s);
        load.cpu_s += s;
        load.top.push_back({pid, a.comm, s});
    }
    std::sort(load.top.begin(), load.top.end(), [](const auto& x, const auto& y) { return x.cpu_s > y.cpu_s; });
    if (load.top.size() > top_n) load.top.resize(top_n);
    return load;
}

}  // namespace zc
