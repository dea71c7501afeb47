// The page reader and the text helpers: what the checks stand on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "code_index.hpp"
#include "detail/api.hpp"
#include "detail/blocks.hpp"
#include "detail/text.hpp"
#include "markdown.hpp"

using skillrt::doc_review::LineKind;
using skillrt::doc_review::Page;
using skillrt::doc_review::parse_page;
namespace detail = skillrt::doc_review::detail;

namespace {

Page page_of(const std::string& text) { return parse_page(text, "/docs/p.md", "p.md"); }

}  // namespace

TEST_CASE("heading slugs follow GitHub: punctuation dropped, CJK kept, duplicates numbered",
          "[doc-review][markdown]") {
  const Page p = page_of(
      "# torch_npu.npu_add_rms_norm\n\n## 产品支持情况\n\n## 约束说明<a name=\"section1234\"></a>\n"
      "\n## Hello, World!\n\n## Hello, World!\n\nTitle\n=====\n\n```\n# not a heading\n```\n");
  REQUIRE(p.headings.size() == 6);
  CHECK(p.headings[0].slug == "torch_npunpu_add_rms_norm");
  CHECK(p.headings[1].slug == "产品支持情况");
  CHECK(p.headings[2].slug == "约束说明");
  CHECK(p.headings[3].slug == "hello-world");
  CHECK(p.headings[4].slug == "hello-world-1");
  CHECK(p.headings[5].plain == "Title");  // setext
  CHECK(p.title == "torch_npu.npu_add_rms_norm");
  CHECK(p.has_anchor("section1234"));
  CHECK(p.has_anchor("产品支持情况"));
  CHECK(p.has_anchor("Hello-World"));  // renderers differ in case and punctuation
  CHECK_FALSE(p.has_anchor("not-a-heading"));
}

TEST_CASE("links: inline, images, HTML, reference definitions, none from code or math",
          "[doc-review][markdown]") {
  const Page p = page_of(
      "See [install](install.md#step-1) and ![fig](figures/a.png).\n"
      "<a href=\"（beta）torch_npu-npu_iou.md\">iou</a> <img src=\"b.svg\">\n"
      "[ref]: other.md\n"
      "`[not](a-link.md)` text\n"
      "```\n[in](code.md)\n```\n"
      "$$\ny=cast\\_to\\_[HiF8/FP8](input/scale)\n$$\n"
      "[nested ![badge](badge.svg)](target.md) [t](<with space.md> \"title\")\n");
  std::vector<std::string> targets;
  for (const auto& l : p.links) targets.push_back(l.target);
  CHECK(targets == std::vector<std::string>{"install.md#step-1", "figures/a.png",
                                            "（beta）torch_npu-npu_iou.md", "b.svg", "other.md",
                                            "target.md", "badge.svg", "with space.md"});
  CHECK(p.links[1].image);
  CHECK(p.links[2].html);
  CHECK(p.links[4].definition);
  CHECK(p.kind(9) == LineKind::kMath);
}

TEST_CASE("tables: cells split at unescaped pipes outside code spans, inside blockquotes too",
          "[doc-review][markdown]") {
  CHECK(skillrt::doc_review::table_cells("| a | `x|y` | b\\|c |").size() == 3);
  CHECK(skillrt::doc_review::table_cells("a | b").size() == 2);
  const Page p = page_of(
      "| h1 | h2 |\n|---|---|\n| 1 | 2 |\n| 1 | 2 | 3 |\n\ntext\n\n> | q | r |\n> |---|---|\n"
      "> | 1 | 2 |\n");
  REQUIRE(p.tables.size() == 2);
  CHECK(p.tables[0].header_cells == 2);
  CHECK(p.tables[0].rows.size() == 2);
  CHECK(p.tables[0].rows[1].second == 3);
  CHECK(p.tables[1].rows.size() == 1);
  CHECK(p.tables[1].rows[0].second == 2);
}

TEST_CASE("fences: info string, indentation inside lists, unclosed blocks",
          "[doc-review][markdown]") {
  const Page p = page_of(
      "1. step\n\n    ```bash\n    ls -l\n    ```\n\n~~~~Python\nprint(1)\n~~~~\n\n```\nopen\n");
  REQUIRE(p.blocks.size() == 3);
  CHECK(p.blocks[0].lang == "bash");
  CHECK(p.blocks[0].text == "ls -l\n");
  CHECK(p.blocks[0].first_line == 4);
  CHECK(p.blocks[1].lang == "python");
  CHECK(p.blocks[1].closed);
  CHECK_FALSE(p.blocks[2].closed);
}

TEST_CASE("paragraphs keep code spans as one marked unit and map offsets to lines",
          "[doc-review][markdown]") {
  const Page p =
      page_of("first line with `a.b()` and\nsecond line.\n\n- item **bold**\n> quoted\n");
  REQUIRE(p.paragraphs.size() == 3);
  const std::string expected = std::string("first line with ") + skillrt::doc_review::kSpanOpen +
                               "a.b()" + skillrt::doc_review::kSpanClose + " and second line.";
  CHECK(p.paragraphs[0].text == expected);
  CHECK(p.paragraphs[0].line_at(p.paragraphs[0].text.find("second")) == 2);
  CHECK(p.paragraphs[1].text == "item bold");
  CHECK(p.paragraphs[2].text == "quoted");
}

TEST_CASE("text helpers: UTF-8 excerpts, percent-decoding, CJK counts", "[doc-review][markdown]") {
  CHECK(detail::percent_decode("%E4%BD%BF%E7%94%A8") == "使用");
  CHECK(detail::percent_decode("a%2") == "a%2");
  CHECK(detail::excerpt("算子开发指南", 3) == "算子开...");
  CHECK(detail::excerpt("a  b\n c") == "a b c");
  CHECK(detail::count_han("torch_npu接口列表") == 4);
  CHECK(detail::heading_slug("（beta）torch_npu.npu_iou") == "betatorch_npunpu_iou");
  CHECK(detail::strip_inline_markdown("**x1**(`Tensor`) [link](a.md) \\_y") ==
        "x1(Tensor) link _y");
}

TEST_CASE("code blocks: prototypes, doctests without continuation prompts, output sections",
          "[doc-review][markdown]") {
  const Page p = page_of(
      "## 函数原型\n\n```python\ntorch_npu.npu_x(a, b=1, *, c=None) -> Tensor\n```\n\n"
      "## 调用示例\n\n```python\n>>> t = f([1,\n        2])\n>>> print(t)\ntensor([1, 2])\n```\n\n"
      "```Python\npython3 -c \"import torch\"\n```\n\n```python\nprint(1)\n"
      "# 执行上述代码的输出类似如下\ntensor([1])\n```\n");
  REQUIRE(p.blocks.size() == 4);
  CHECK(detail::classify_block(p, p.blocks[0]) == detail::BlockKind::kPrototype);
  CHECK(detail::classify_block(p, p.blocks[1]) == detail::BlockKind::kPython);
  CHECK(detail::classify_block(p, p.blocks[2]) == detail::BlockKind::kShell);
  CHECK(detail::python_source(p.blocks[1].text) == "t = f([1,\n2])\nprint(t)\n\n");
  bool cut = false;
  CHECK(detail::python_source(p.blocks[3].text, &cut) == "print(1)\n\n\n");
  CHECK(cut);
  const auto protos = detail::parse_prototypes(p.blocks[0]);
  REQUIRE(protos.size() == 1);
  CHECK(protos[0].name == "torch_npu.npu_x");
  REQUIRE(protos[0].params.size() == 3);
  CHECK(protos[0].params[1].default_value == "1");
  CHECK(protos[0].params[2].keyword_only);
}

TEST_CASE("API references: dotted names, calls and their keyword names", "[doc-review][markdown]") {
  const auto refs = detail::find_api_refs(
      "y = torch_npu.npu_rms_norm(x,\n    gamma, epsilon=1e-6, f(a=1))\nz = "
      "torch.ops.npu.npu_x.default\n"
      "mytorch_npu.no(1)\n",
      10);
  REQUIRE(refs.size() == 2);
  CHECK(refs[0].name == "torch_npu.npu_rms_norm");
  CHECK(refs[0].call);
  REQUIRE(refs[0].keywords.size() == 1);
  CHECK(refs[0].keywords[0].name == "epsilon");
  CHECK(refs[0].keywords[0].line == 11);
  CHECK(refs[1].name == "torch.ops.npu.npu_x.default");
  CHECK(detail::same_default("1e-6", "1e-06"));
  CHECK(detail::same_default("2^63-1", "9223372036854775807"));
  CHECK(detail::same_default("'BSND'", "\"BSND\""));
  CHECK_FALSE(detail::same_default("0", "-2"));
  bool open = false;
  const auto params =
      skillrt::doc_review::parse_python_params("self, x: int = 1, *args, y=(1, 2), **kw", &open);
  CHECK(open);
  REQUIRE(params.size() == 3);
  CHECK(params[2].name == "y");
  CHECK(params[2].keyword_only);
}
