#pragma once
// Report writers: human table, CSV, JSON. All read the same TestResult; each result is written as
// soon as it exists (a long sweep shows progress), the JSON document is closed at the end.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "protocol/result.hpp"

namespace zc {

struct ReportHeader {
    std::string software;
    std::string command_line;
    std::string local_host;
    std::string remote_host;
    std::string server;  // host:port as reached
    bool embedded_server = false;
    std::string remote_software;
    std::string local_kernel, remote_kernel;  // uname -r (zcperf compare names them)
};

class ReportWriter {
public:
    virtual ~ReportWriter() = default;
    virtual void begin(const ReportHeader& header) = 0;
    virtual void add(const TestResult& result) = 0;
    // --interval: one interval of the test running now, as soon as both sides' halves are in.
    virtual void interval(const TestParams& test, const IntervalRow& row) {
        (void)test;
        (void)row;
    }
    virtual void error(const std::string& what) = 0;  // a test that failed, in the report's own form
    virtual void end() = 0;
};

// "human", "csv", "json", "json-stream"; throws std::invalid_argument for anything else.
std::unique_ptr<ReportWriter> make_report_writer(const std::string& format, std::ostream& out);

std::unique_ptr<ReportWriter> make_human_report(std::ostream& out);
std::unique_ptr<ReportWriter> make_csv_report(std::ostream& out);
std::unique_ptr<ReportWriter> make_json_report(std::ostream& out);
// --json-stream: one JSON object a line, flushed as it happens: {"event": "start" | "interval" | "result" |
// "error" | "end", ...}.
std::unique_ptr<ReportWriter> make_json_stream_report(std::ostream& out);
// --csv-intervals FILE: one CSV row per interval, written as each interval ends.
std::unique_ptr<ReportWriter> make_csv_intervals_report(std::ostream& out);
// Hands everything to each writer in turn.
std::unique_ptr<ReportWriter> make_tee_report(std::vector<std::unique_ptr<ReportWriter>> writers);

nlohmann::json to_json(const ReportHeader& h);
// The JSON report's document: {kRunKey: the header, kResultsKey: [each test's to_json], "errors": [...]}
// (json_report.cpp writes it, zcperf compare reads it back).
inline constexpr const char* kRunKey = "run";
inline constexpr const char* kResultsKey = "results";

}  // namespace zc
