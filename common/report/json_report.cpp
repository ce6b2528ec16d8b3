#include "report/report_writer.hpp"

namespace zc {

nlohmann::json to_json(const ReportHeader& h) {
    return {{"software", h.software},
            {"command_line", h.command_line},
            {"local_host", h.local_host},
            {"remote_host", h.remote_host},
            {"server", h.server},
            {"embedded_server", h.embedded_server},
            {"remote_software", h.remote_software},
            {"local_kernel", h.local_kernel},
            {"remote_kernel", h.remote_kernel}};
}

namespace {

class JsonReport : public ReportWriter {
public:
    explicit JsonReport(std::ostream& out) : out_(out) {}
    void begin(const ReportHeader& h) override { run_ = to_json(h); }
    void add(const TestResult& r) override { results_.push_back(to_json(r)); }
    void error(const std::string& what) override { errors_.push_back(what); }
    void end() override {
        nlohmann::json doc = {{kRunKey, run_}, {kResultsKey, results_}, {"errors", errors_}};
        out_ << doc.dump(2) << "\n";
    }

private:
    std::ostream& out_;
    nlohmann::json run_;
    nlohmann::json results_ = nlohmann::json::array(), errors_ = nlohmann::json::array();
};

// One JSON object per line, each an event: its name, and its value under a key.
class JsonStreamReport : public ReportWriter {
public:
    explicit JsonStreamReport(std::ostream& out) : out_(out) {}
    // The header under the same key as in the whole document.
    void begin(const ReportHeader& h) override { line(event("start", kRunKey, to_json(h))); }
    void interval(const TestParams& p, const IntervalRow& row) override {
        nlohmann::json j = event("interval");
        j.update({{"transport", transport_name(p.transport)},
                  {"test", workload_name(p.test)},
                  {"rx", rx_mode_name(p.rx)},
                  {"message_size", p.message_size},
                  {"streams", p.streams}});
        j.update(to_json(row, p.test));
        line(j);
    }
    // These two carry their value under the event's own name.
    void add(const TestResult& r) override { line(event("result", nullptr, to_json(r))); }
    void error(const std::string& what) override { line(event("error", nullptr, what)); }
    void end() override { line(event("end")); }

private:
    static nlohmann::json event(const char* name, const char* key = nullptr, nlohmann::json value = nullptr) {
        nlohmann::json j = {{"event", name}};
        if (!value.is_null()) j[key ? key : name] = std::move(value);
        return j;
    }
    void line(const nlohmann::json& j) {
        out_ << j.dump() << "\n";
        out_.flush();  // a dashboard reading the pipe sees each line as it happens
    }
    std::ostream& out_;
};

class TeeReport : public ReportWriter {
public:
    explicit TeeReport(std::vector<std::unique_ptr<ReportWriter>> w) : writers_(std::move(w)) {}
    void begin(const ReportHeader& h) override {
        for (auto& w : writers_) w->begin(h);
    }
    void interval(const TestParams& p, const IntervalRow& row) override {
        for (auto& w : writers_) w->interval(p, row);
    }
    void add(const TestResult& r) override {
        for (auto& w : writers_) w->add(r);
    }
    void error(const std::string& what) override {
        for (auto& w : writers_) w->error(what);
    }
    void end() override {
        for (auto& w : writers_) w->end();
    }

private:
    std::vector<std::unique_ptr<ReportWriter>> writers_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_json_stream_report(std::ostream& out) {
    return std::make_unique<JsonStreamReport>(out);
}
std::unique_ptr<ReportWriter> make_tee_report(std::vector<std::unique_ptr<ReportWriter>> writers) {
    return std::make_unique<TeeReport>(std::move(writers));
}

std::unique_ptr<ReportWriter> make_json_report(std::ostream& out) { return std::make_unique<JsonReport>(out); }

}  // namespace zc
