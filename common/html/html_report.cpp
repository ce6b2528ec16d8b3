// A run's --html: the report -o json writes, gathered, then written as the page when the run ends.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "html/html_page.hpp"

namespace zc {

namespace {

class HtmlReport : public ReportWriter {
public:
    explicit HtmlReport(const std::string& file) : file_(file), out_(file), json_(make_json_report(buffer_)) {
        if (!out_) throw std::runtime_error("cannot write --html " + file + ": " + std::strerror(errno));
    }
    void begin(const ReportHeader& h) override { json_->begin(h); }
    void add(const TestResult& r) override { json_->add(r); }
    void error(const std::string& what) override { json_->error(what); }
    void end() override {
        json_->end();
        out_ << html_page(run_page_data(nlohmann::json::parse(buffer_.str())));
        out_.flush();
        if (!out_) std::cerr << "zcperf: writing --html " << file_ << " failed: " << std::strerror(errno) << "\n";
    }

private:
    std::string file_;
    std::ofstream out_;
    std::ostringstream buffer_;
    std::unique_ptr<ReportWriter> json_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_html_report(const std::string& file) { return std::make_unique<HtmlReport>(file); }

}  // namespace zc
