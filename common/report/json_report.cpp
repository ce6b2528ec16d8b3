#include "report/report_writer.hpp"

namespace zc {

nlohmann::json to_json(const ReportHeader& h) {
    return {{"software", h.software},
            {"command_line", h.command_line},
            {"local_host", h.local_host},
            {"remote_host", h.remote_host},
            {"server", h.server},
            {"embedded_server", h.embedded_server},
            {"remote_software", h.remote_software}};
}

namespace {

class JsonReport : public ReportWriter {
public:
    explicit JsonReport(std::ostream& out) : out_(out) {}
    void begin(const ReportHeader& h) override {
        doc_ = {{"run", to_json(h)}, {"results", nlohmann::json::array()}, {"errors", nlohmann::json::array()}};
    }
    void add(const TestResult& r) override { doc_["results"].push_back(to_json(r)); }
    void error(const std::string& what) override { doc_["errors"].push_back(what); }
    void end() override { out_ << doc_.dump(2) << "\n"; }

private:
    std::ostream& out_;
    nlohmann::json doc_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_json_report(std::ostream& out) { return std::make_unique<JsonReport>(out); }

}  // namespace zc
