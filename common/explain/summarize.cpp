#include <algorithm>
#include <map>
#include <unordered_map>

#include "explain/sampler.hpp"

namespace zc {

namespace {

// What one distinct kernel chain comes to: its frames' names, leaf first, and its category.
struct Resolved {
    std::vector<const KernelSymbol*> frames;  // nullptr: no symbol
    Category category = Category::other;
    bool idle = false;
};

// "virtnet_poll [virtio_net]": a frame as folded stacks write it, and as the table's module rules read it.
std::string frame_name(const KernelSymbol* s) {
    if (s == nullptr) return "[unknown]";
    return s->module.empty() ? s->name : s->name + " [" + s->module + "]";
}

Resolved resolve(const SampleKey& k, const KernelSymbols& symbols) {
    Resolved r;
    for (uint64_t ip : k.ips) r.frames.push_back(symbols.find(ip));
    if (r.frames.empty() || r.frames.front() == nullptr) {
        r.category = Category::unknown;
        return r;
    }
    std::vector<std::string> named;  // once per distinct chain, not per sample
    bool interrupted = false;
    for (const KernelSymbol* s : r.frames) {
        if (s == nullptr) break;  // a chain is walked up only through frames we can name
        named.push_back(frame_name(s));
        interrupted = interrupted || is_interrupt_entry(s->name);
    }
    r.category = attribute_chain(std::vector<std::string_view>(named.begin(), named.end()));
    // The idle task's own time is idle (so /proc/stat counts it) unless it was interrupted for work;
    // an idle function's time is idle whoever runs it (a polling idle loop).
    r.idle = ((k.flags & SampleKey::idle_task) && !interrupted) || r.category == Category::idle;
    return r;
}

}  // namespace

ExplainSide summarize_samples(const SampleTotals& totals, const KernelSymbols& symbols, double period_s, bool stacks) {
    ExplainSide out;
    out.ran = true;
    out.event = "cpu-clock";
    out.period_s = period_s;
    out.hz = period_s > 0 ? static_cast<int>(1.0 / period_s + 0.5) : 0;
    out.lost = totals.lost;
    out.throttled = totals.throttled;
    out.sampler_cpu_s = totals.sampler_cpu_s;
    out.sampled_from_s = totals.from_s;
    out.sampled_until_s = totals.until_s;
    std::map<int, ExplainCpu> per_cpu;
    std::unordered_map<size_t, ExplainFunction> by_leaf;  // kernel leaves by symbol index
    ExplainFunction own_user{"[zcperf user]", "", Category::user, 0};
    ExplainFunction own_crypto{"[zcperf user: libcrypto]", "", Category::user_crypto, 0};
    ExplainFunction other_user{"[other processes' user time]", "", Category::other_process, 0};
    ExplainFunction unknown{"[unknown kernel address]", "", Category::unknown, 0};
    std::unordered_map<std::string, uint64_t> folded;
    // Pass 1: each key's category (the idle left out) and, per CPU, the busy samples and the time they
    // stand for. A late timer's sample stands for the periods it missed (sampler.cpp), but it lands where
    // interrupts came back on (an unlock, the end of a context switch), not where that time went: the
    // missed time is spread over the CPU's categories as its samples are, so the shares are the sample
    // counts' (as perf's) and the CPU's total is the weighted one.
    struct Keyed {
        const SampleKey* key;
        const SampleTally* tally;
        Category category;
        std::vector<const KernelSymbol*> frames;
    };
    struct CpuWeight {
        uint64_t samples = 0, ns = 0;
    };
    std::vector<Keyed> busy;
    std::map<uint32_t, CpuWeight> weight;
    for (const auto& [key, tally] : totals.counts) {
        out.samples += tally.samples;
        Keyed x{&key, &tally, Category::other, {}};
        if (key.flags & SampleKey::user) {
            const bool own = key.flags & SampleKey::own, crypto = own && (key.flags & SampleKey::libcrypto);
            x.category = crypto ? Category::user_crypto : own ? Category::user : Category::other_process;
        } else {
            Resolved r = resolve(key, symbols);
            if (r.idle) continue;
            x.category = r.category;
            x.frames = std::move(r.frames);
        }
        weight[key.cpu].samples += tally.samples;
        weight[key.cpu].ns += tally.ns;
        busy.push_back(std::move(x));
    }
    // Pass 2: each key's time at its CPU's time per sample.
    for (const Keyed& x : busy) {
        const SampleKey& key = *x.key;
        const uint64_t n = x.tally->samples;
        const CpuWeight& w = weight[key.cpu];
        const double t =
            w.samples > 0 ? static_cast<double>(n) * static_cast<double>(w.ns) * 1e-9 / static_cast<double>(w.samples)
                          : 0.0;
        const Category cat = x.category;
        ExplainFunction* leaf = nullptr;
        std::string stack;
        if (key.flags & SampleKey::user) {
            const bool own = key.flags & SampleKey::own, crypto = cat == Category::user_crypto;
            leaf = crypto ? &own_crypto : own ? &own_user : &other_user;
            if (stacks) stack = crypto ? "[zcperf user];[libcrypto]" : own ? "[zcperf user]" : "[other process user]";
        } else if (x.frames.empty() || x.frames.front() == nullptr) {
            leaf = &unknown;
        } else {
            size_t i = symbols.index_of(x.frames.front());
            auto [it, fresh] = by_leaf.try_emplace(i);
            if (fresh) {
                it->second.name = x.frames.front()->name;
                it->second.module = x.frames.front()->module;
                // The leaf's own rule: "inherit" for a leaf whose samples went to its callers'.
                it->second.category = category_of_function(frame_name(x.frames.front()));
            }
            leaf = &it->second;
        }
        if (stacks && !(key.flags & SampleKey::user)) {
            for (auto f = x.frames.rbegin(); f != x.frames.rend(); ++f)
                stack += (stack.empty() ? "" : ";") + frame_name(*f);
        }
        // The test's own kernel work: its process's, less the sampler thread's (the measuring, not the test).
        if ((key.flags & SampleKey::own) && !(key.flags & (SampleKey::user | SampleKey::sampler))) {
            out.own_kernel_samples += n;
            if (cat == Category::other || cat == Category::unknown) out.own_unclassified_samples += n;
        }
        out.busy_samples += n;
        out.busy_s += t;
        out.category_s[static_cast<size_t>(cat)] += t;
        out.category_samples[static_cast<size_t>(cat)] += n;
        ExplainCpu& c = per_cpu[static_cast<int>(key.cpu)];
        c.cpu = static_cast<int>(key.cpu);
        c.busy_s += t;
        c.category_s[static_cast<size_t>(cat)] += t;
        leaf->cpu_s += t;
        if (stacks) folded[stack] += n;
    }
    std::vector<ExplainFunction> all;
    for (auto& [i, f] : by_leaf) all.push_back(std::move(f));
    for (auto* f : {&own_user, &own_crypto, &other_user, &unknown})
        if (f->cpu_s > 0) all.push_back(*f);
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.cpu_s != b.cpu_s ? a.cpu_s > b.cpu_s : a.name < b.name; });
    if (all.size() > kTopFunctions) all.resize(kTopFunctions);
    out.top = std::move(all);
    for (auto& [cpu, c] : per_cpu) out.per_cpu.push_back(c);
    if (stacks) {
        out.stacks.assign(folded.begin(), folded.end());
        std::sort(out.stacks.begin(), out.stacks.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        for (size_t i = kMaxStacks; i < out.stacks.size(); ++i) out.stacks_left_out += out.stacks[i].second;
        if (out.stacks.size() > kMaxStacks) out.stacks.resize(kMaxStacks);
    }
    return out;
}

}  // namespace zc

namespace zc {

void merge_explain(ExplainSide& into, const ExplainSide& add) {
    if (!add.ran) {
        if (into.problem.empty()) into.problem = add.problem;
        into.ran = false;  // a figure over some repetitions only would not add up to their SD
        return;
    }
    if (!into.ran) return;
    into.samples += add.samples;
    into.busy_samples += add.busy_samples;
    into.own_kernel_samples += add.own_kernel_samples;
    into.own_unclassified_samples += add.own_unclassified_samples;
    into.lost += add.lost;
    into.throttled += add.throttled;
    into.busy_s += add.busy_s;
    into.stat_busy_s += add.stat_busy_s;
    into.stat_steal_s += add.stat_steal_s;
    // cpuidle over some repetitions only would not add up to the others' figures: all or none
    if (into.cpuidle_absent.empty() && !add.cpuidle_absent.empty()) into.cpuidle_absent = add.cpuidle_absent;
    into.cpuidle_busy_s = into.cpuidle_absent.empty() ? into.cpuidle_busy_s + add.cpuidle_busy_s : 0;
    into.idle_clock_busy_s += add.idle_clock_busy_s;
    into.sampler_cpu_s += add.sampler_cpu_s;
    if (add.sampled_from_s > 0)
        into.sampled_from_s =
            into.sampled_from_s > 0 ? std::min(into.sampled_from_s, add.sampled_from_s) : add.sampled_from_s;
    into.sampled_until_s = std::max(into.sampled_until_s, add.sampled_until_s);
    for (size_t i = 0; i < kCategoryCount; ++i) into.category_s[i] += add.category_s[i];
    for (size_t i = 0; i < kCategoryCount; ++i) into.category_samples[i] += add.category_samples[i];
    for (const auto& c : add.per_cpu) {
        auto it = std::find_if(into.per_cpu.begin(), into.per_cpu.end(), [&](const auto& x) { return x.cpu == c.cpu; });
        if (it == into.per_cpu.end()) {
            into.per_cpu.push_back(c);
            continue;
        }
        it->busy_s += c.busy_s;
        for (size_t i = 0; i < kCategoryCount; ++i) it->category_s[i] += c.category_s[i];
    }
    std::sort(into.per_cpu.begin(), into.per_cpu.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
    for (const auto& f : add.top) {
        auto it = std::find_if(into.top.begin(), into.top.end(), [&](const auto& x) { return x.name == f.name; });
        if (it == into.top.end())
            into.top.push_back(f);
        else
            it->cpu_s += f.cpu_s;
    }
    std::sort(into.top.begin(), into.top.end(), [](const auto& a, const auto& b) { return a.cpu_s > b.cpu_s; });
    if (into.top.size() > kTopFunctions) into.top.resize(kTopFunctions);
    std::map<std::string, uint64_t> stacks(into.stacks.begin(), into.stacks.end());
    for (const auto& [s, n] : add.stacks) stacks[s] += n;
    into.stacks.assign(stacks.begin(), stacks.end());
    std::sort(into.stacks.begin(), into.stacks.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (size_t i = kMaxStacks; i < into.stacks.size(); ++i) into.stacks_left_out += into.stacks[i].second;
    if (into.stacks.size() > kMaxStacks) into.stacks.resize(kMaxStacks);
    into.stacks_left_out += add.stacks_left_out;
}

}  // namespace zc
