// inferencex-report against a local data server whose data changes between two runs, a
// malformed source beside a good one, and a real SMTP server (aiosmtpd) that receives the mail.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "inferencex_report.hpp"
#include "test_support.hpp"

namespace dt = skillrt::daily_trackers;
using dtt::json;

namespace {

struct Server {
  dtt::Child child{{dtt::kPython, dtt::kTestData + "/fake_servers.py"}, true};
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(child.port()) + path;
  }
};

json request(const Server& s, const dtt::TempDir& dir, const std::string& as_of) {
  return json{
      {"sources", json::array({{{"name", "inferencex"}, {"url", s.url("/bench/latest.json")}}})},
      {"as_of", as_of},
      {"output_dir", dir.str("out")},
      {"github", {{"retry_base_ms", 0}}}};
}

const json* find_change(const json& out, const std::string& kind, const std::string& hw,
                        const std::string& metric = "") {
  for (const json& c : out["changes"]) {
    if (c["kind"] == kind && c["point"]["hardware"] == hw &&
        (metric.empty() || c["metric"] == metric))
      return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("inferencex-report: data that changes between runs is detected against the history") {
  Server s;
  dtt::TempDir dir("bench");
  const json first = dt::run_inferencex_report(request(s, dir, "2026-11-02"), {});
  CHECK(first["counts"]["points"] == 24);
  CHECK_FALSE(first["compared_with_previous"].get<bool>());
  CHECK(first["changes"].empty());
  CHECK(first["setting"]["points"] == 12);
  REQUIRE(first["setting"]["best_per_hardware"].size() == 6);  // 2 models x 3 hardware
  CHECK(first["setting"]["best_per_hardware"][0]["hardware"] == "b200");
  CHECK(first["setting"]["best_per_hardware"][0]["ratio_to_leader"] == 1.0);

  dtt::http_get(s.child.port(), "/_advance");
  const json second = dt::run_inferencex_report(request(s, dir, "2026-11-03"), {});
  CHECK(second["compared_with_previous"].get<bool>());
  CHECK(second["new_hardware"] == json::array({"mi355x"}));
  CHECK(second["new_models"].empty());
  const json* moved = find_change(second, "moved", "h200", "tput_per_gpu");
  REQUIRE(moved != nullptr);
  CHECK(moved->at("pct") == Approx(12.0).margin(0.1));
  CHECK(moved->at("better").get<bool>());
  REQUIRE(find_change(second, "removed", "mi300x") != nullptr);
  REQUIRE(find_change(second, "new", "mi355x") != nullptr);
  CHECK(find_change(second, "moved", "b200") == nullptr);  // unchanged hardware stays quiet

  const std::string html = dtt::read_file(second["reports"]["html"].get<std::string>());
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("2026-11-02") != std::string::npos);  // the trend spans both days
  CHECK(html.find("2026-11-03") != std::string::npos);
  const std::string md = dtt::read_file(second["reports"]["md"].get<std::string>());
  CHECK(md.find("8k in / 1k out across hardware") != std::string::npos);
  CHECK(md.find("new hardware: mi355x") != std::string::npos);
  // The Excel table has every point, read back by openpyxl.
  const std::string xlsx = second["reports"]["xlsx"];
  const std::string cmd =
      std::string(dtt::kPython) +
      " -c \"import openpyxl,sys; ws=openpyxl.load_workbook(sys.argv[1])['Benchmarks']; "
      "print(ws.max_row-1, ws.cell(1,1).value)\" '" +
      xlsx + "' > '" + dir.str("x.txt") + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(dtt::read_file(dir.str("x.txt")) == "25 model\n");
}

TEST_CASE("inferencex-report: a malformed source fails alone, the good one is reported") {
  Server s;
  dtt::TempDir dir("badbench");
  json in = request(s, dir, "2026-11-02");
  in["sources"].push_back({{"name", "broken"}, {"url", s.url("/bench/bad.json")}});
  in["sources"].push_back(
      {{"name", "local csv"}, {"file", dtt::kTestData + "/bench_2026-11-02.csv"}});
  const json out = dt::run_inferencex_report(in, {});
  REQUIRE(out["sources"].size() == 3);
  CHECK(out["sources"][0]["ok"].get<bool>());
  CHECK(out["sources"][0]["items"] == 0);  // the CSV has the same configurations: the later wins
  CHECK_FALSE(out["sources"][1]["ok"].get<bool>());
  CHECK(out["sources"][1]["error"] ==
        "broken: broken: row 1: neither `infmax_model_prefix` nor `model` is given");
  CHECK(out["sources"][2]["ok"].get<bool>());
  CHECK(out["sources"][2]["items"] == 24);
  CHECK(out["counts"]["points"] == 24);
  CHECK_FALSE(out["run"]["complete"].get<bool>());
}

TEST_CASE("inferencex-report: the report is mailed to a real SMTP server, credentials unseen") {
  Server s;
  dtt::TempDir dir("mail");
  dtt::fs::create_directories(dir.str("inbox"));
  dtt::Child smtp(
      {dtt::kPython, dtt::kTestData + "/smtp_sink.py", dir.str("inbox"), "reporter", "s3cret-pw"},
      true);
  ::setenv("DTT_SMTP_USER", "reporter", 1);
  ::setenv("DTT_SMTP_PASS", "s3cret-pw", 1);
  json in = request(s, dir, "2026-11-02");
  in["email"] = {{"to", {"team@example.com"}},
                 {"from", "skillrt@example.com"},
                 {"smtp_url", "smtp://127.0.0.1:" + std::to_string(smtp.port())},
                 {"tls", "none"},
                 {"username_env", "DTT_SMTP_USER"},
                 {"password_env", "DTT_SMTP_PASS"}};
  const json out = dt::run_inferencex_report(in, {});
  REQUIRE(out["email"]["sent"].get<bool>());
  CHECK(out["email"]["credentials_from"] == "environment");
  CHECK(out.dump().find("s3cret-pw") == std::string::npos);
  const json envelope = json::parse(dtt::read_file(dir.str("inbox/1.json")));
  CHECK(envelope["auth_login"] == "reporter");
  CHECK(envelope["rcpt_tos"] == json::array({"team@example.com"}));
  // Parse the received message with Python's email package: subject, HTML body, attachment.
  const std::string cmd =
      std::string(dtt::kPython) +
      " -c \"import email,json,sys; m=email.message_from_binary_file(open(sys.argv[1],'rb')); "
      "parts=[p for p in m.walk() if not p.is_multipart()]; "
      "print(json.dumps({'subject':m['Subject'],'parts':[{'type':p.get_content_type(),'name':p.get_"
      "filename(),"
      "'text':p.get_payload(decode=True).decode()} for p in parts]}))\" '" +
      dir.str("inbox/1.eml") + "' > '" + dir.str("mail.json") + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const json mail = json::parse(dtt::read_file(dir.str("mail.json")));
  CHECK(mail["subject"] == "InferenceX daily report 2026-11-02: 0 changes, 24 points");
  REQUIRE(mail["parts"].size() == 2);
  CHECK(mail["parts"][0]["type"] == "text/html");
  CHECK(mail["parts"][0]["text"] == dtt::read_file(out["reports"]["html"].get<std::string>()));
  CHECK(mail["parts"][1]["name"] == "inferencex-report-2026-11-02.md");
  CHECK(mail["parts"][1]["text"] == dtt::read_file(out["reports"]["md"].get<std::string>()));
}
