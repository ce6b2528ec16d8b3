#include "iterations.hpp"

#include "explain/explain_result.hpp"

#include <algorithm>

namespace zc {

namespace {

void add_weighted(CpuShare& into, const CpuShare& s, double w) {
    into.user += s.user * w;
    into.nice += s.nice * w;
    into.system += s.system * w;
    into.irq += s.irq * w;
    into.softirq += s.softirq * w;
    into.iowait += s.iowait * w;
    into.steal += s.steal * w;
    into.idle += s.idle * w;
}

SideResult merge_side(const std::vector<const SideResult*>& sides) {
    SideResult m = *sides.front();
    if (sides.size() == 1) return m;
    double total_s = 0;
    for (const auto* s : sides) total_s += s->cpu.elapsed_s;
    m.bytes = m.ops = 0;
    m.zerocopy = {};
    m.memory.staging = {};
    m.elapsed_s = m.loops_s = m.process_user_s = m.process_sys_s = 0;
    m.cpu.all = {};
    m.cpu.busy_cpu_s = m.cpu.elapsed_s = m.cpu.others.cpu_s = 0;
    std::fill(m.stream_bytes.begin(), m.stream_bytes.end(), 0);
    for (auto& c : m.cpu.per_cpu) c.share = {};
    m.warnings.clear();
    m.messages = {};
    for (const auto* s : sides) {
        m.messages.merge(s->messages);
        if (s != sides.front()) merge_explain(m.explain, s->explain);
        double w = total_s > 0 ? s->cpu.elapsed_s / total_s : 0;
        m.bytes += s->bytes;
        m.ops += s->ops;
        m.zerocopy.add(s->zerocopy);
        m.memory.staging.add(s->memory.staging);
        m.elapsed_s += s->elapsed_s;
        m.loops_s += s->measured_s();
        m.process_user_s += s->process_user_s;
        m.process_sys_s += s->process_sys_s;
        for (size_t i = 0; i < m.stream_bytes.size() && i < s->stream_bytes.size(); ++i)
            m.stream_bytes[i] += s->stream_bytes[i];
        add_weighted(m.cpu.all, s->cpu.all, w);
        m.cpu.busy_cpu_s += s->cpu.busy_cpu_s;
        m.cpu.elapsed_s += s->cpu.elapsed_s;
        m.cpu.others.cpu_s += s->cpu.others.cpu_s;
        for (auto& c : m.cpu.per_cpu) {
            for (const auto& o : s->cpu.per_cpu)
                if (o.cpu == c.cpu) add_weighted(c.share, o.share, w);
        }
        for (const auto& wmsg : s->warnings)
            if (std::find(m.warnings.begin(), m.warnings.end(), wmsg) == m.warnings.end()) m.warnings.push_back(wmsg);
    }
    return m;
}

}  // namespace

double tracked_rate(const TestResult& r) {
    return is_message_test(r.test) ? r.messages.messages_per_s : r.throughput_gbps;
}

const char* tracked_metric(Workload t) {
    return is_transaction_test(t)   ? "transactions_per_s"
           : t == Workload::msgrate ? "messages_per_s"
                                    : "throughput_gbps";
}

std::vector<std::vector<double>> tracked_series(const std::vector<TestResult>& runs) {
    std::vector<std::vector<double>> t(3);
    for (const auto& r : runs) {
        t[0].push_back(tracked_rate(r));
        // Service demand per transaction / message for the message tests (netperf's us/Tran).
        bool msg = is_message_test(r.test);
        t[1].push_back(msg ? r.messages.local_sd_us : r.local.service_demand_us_per_kb());
        t[2].push_back(msg ? r.messages.remote_sd_us : r.remote.service_demand_us_per_kb());
    }
    return t;
}

TestResult merge_iterations(const std::vector<TestResult>& runs, const ConfidenceGoal& goal) {
    TestResult m = runs.front();
    std::vector<const SideResult*> locals, remotes;
    std::vector<double> tput, rate;
    m.bytes = 0;
    m.elapsed_s = m.setup_ms = 0;
    m.warnings.clear();
    m.intervals.clear();
    m.round_figures.clear();
    for (const auto& r : runs) {
        if (runs.size() > 1) m.round_figures.push_back(result_figures(r));
        locals.push_back(&r.local);
        remotes.push_back(&r.remote);
        tput.push_back(r.throughput_gbps);
        rate.push_back(tracked_rate(r));
        m.bytes += r.bytes;
        m.elapsed_s += r.elapsed_s;
        m.setup_ms += r.setup_ms / static_cast<double>(runs.size());
        m.intervals.insert(m.intervals.end(), r.intervals.begin(), r.intervals.end());  // each tagged with its run
        for (const auto& w : r.warnings)
            if (std::find(m.warnings.begin(), m.warnings.end(), w) == m.warnings.end()) m.warnings.push_back(w);
    }
    m.local = merge_side(locals);
    m.remote = merge_side(remotes);
    m.throughput_gbps = confidence_interval(tput, goal.level_pct).mean;
    Interval iv = confidence_interval(rate, goal.level_pct);  // what -i/-I judge (tracked_series' first)
    m.iterations.iterations = static_cast<int>(runs.size());
    bool asked = goal.max_iterations > 1;
    m.iterations.level_pct = asked ? goal.level_pct : 0;
    m.iterations.width_goal_pct = asked ? goal.width_pct : 0;
    m.iterations.throughput_width_pct = iv.width_pct;
    m.iterations.metric = tracked_metric(m.test);
    m.iterations.met = !asked || interval_met(goal, tracked_series(runs));
    if (is_message_test(m.test))
        m.messages = message_result(m.test, m.transport, m.messages.batch, m.local, m.remote, m.elapsed_s,
                                    m.messages.percentiles);
    return m;
}

}  // namespace zc
