#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "spec/expr.hpp"

namespace kwb::spec {
namespace {

constexpr int64_t k_max = std::numeric_limits<int64_t>::max();
constexpr int64_t k_min = std::numeric_limits<int64_t>::min();

int64_t eval_ok(std::string_view text, const Env& env = {}) {
  auto v = evaluate(text, env);
  EXPECT_TRUE(v.has_value()) << text << ": " << (v ? "" : v.error().what());
  return v.value_or(-424242);
}

std::string parse_error(std::string_view text) {
  auto e = Expr::parse(text);
  EXPECT_FALSE(e.has_value()) << text << " parsed";
  return e ? "" : e.error().what();
}

std::string eval_error(std::string_view text, const Env& env = {}) {
  auto v = evaluate(text, env);
  EXPECT_FALSE(v.has_value()) << text << " = " << v.value_or(0);
  return v ? "" : v.error().what();
}

TEST(Expr, Numbers) {
  EXPECT_EQ(eval_ok("0"), 0);
  EXPECT_EQ(eval_ok("42"), 42);
  EXPECT_EQ(eval_ok("9223372036854775807"), k_max);
}

TEST(Expr, Precedence) {
  EXPECT_EQ(eval_ok("2+3*4"), 14);
  EXPECT_EQ(eval_ok("2*3+4"), 10);
  EXPECT_EQ(eval_ok("(2+3)*4"), 20);
  EXPECT_EQ(eval_ok("1+10%4"), 3);
  EXPECT_EQ(eval_ok("20-12/4"), 17);
  EXPECT_EQ(eval_ok("((((7))))"), 7);
}

TEST(Expr, LeftAssociativity) {
  EXPECT_EQ(eval_ok("10-3-2"), 5);
  EXPECT_EQ(eval_ok("100/10/5"), 2);
  EXPECT_EQ(eval_ok("100/10*5"), 50);
  EXPECT_EQ(eval_ok("17%10%4"), 3);
  EXPECT_EQ(eval_ok("2*3%4"), 2);
}

TEST(Expr, UnaryMinus) {
  EXPECT_EQ(eval_ok("-5"), -5);
  EXPECT_EQ(eval_ok("--5"), 5);
  EXPECT_EQ(eval_ok("-2*3"), -6);
  EXPECT_EQ(eval_ok("2*-3"), -6);
  EXPECT_EQ(eval_ok("4 - -3"), 7);
  EXPECT_EQ(eval_ok("-(2+3)"), -5);
  EXPECT_EQ(eval_ok("-n", {{"n", 4}}), -4);
}

TEST(Expr, CDivisionAndModuloTruncateTowardZero) {
  EXPECT_EQ(eval_ok("7/2"), 3);
  EXPECT_EQ(eval_ok("-7/2"), -3);
  EXPECT_EQ(eval_ok("7/-2"), -3);
  EXPECT_EQ(eval_ok("-7/-2"), 3);
  EXPECT_EQ(eval_ok("7%2"), 1);
  EXPECT_EQ(eval_ok("-7%2"), -1);
  EXPECT_EQ(eval_ok("7%-2"), 1);
  EXPECT_EQ(eval_ok("-7%-2"), -1);
  EXPECT_EQ(eval_ok("x % -1", {{"x", k_min}}), 0);
}

TEST(Expr, CeilDiv) {
  EXPECT_EQ(eval_ok("ceil_div(0, 4)"), 0);
  EXPECT_EQ(eval_ok("ceil_div(1, 4)"), 1);
  EXPECT_EQ(eval_ok("ceil_div(8, 4)"), 2);
  EXPECT_EQ(eval_ok("ceil_div(9, 4)"), 3);
  EXPECT_EQ(eval_ok("ceil_div(-7, 2)"), -3);  // ceil(-3.5)
  EXPECT_EQ(eval_ok("ceil_div(-8, 2)"), -4);
  EXPECT_EQ(eval_ok("ceil_div(x, 2)", {{"x", k_max}}), k_max / 2 + 1);  // no a+b-1 overflow
  EXPECT_EQ(eval_ok("ceil_div(n, 128) * 128", {{"n", 1000}}), 1024);
  EXPECT_NE(eval_error("ceil_div(7, 0)").find("ceil_div(7, 0): the divisor must be > 0"), std::string::npos);
  EXPECT_NE(eval_error("ceil_div(7, -2)").find("the divisor must be > 0"), std::string::npos);
}

TEST(Expr, MinMaxAreNary) {
  EXPECT_EQ(eval_ok("min(3, 1)"), 1);
  EXPECT_EQ(eval_ok("max(3, 1)"), 3);
  EXPECT_EQ(eval_ok("min(5, -2, 9, 0)"), -2);
  EXPECT_EQ(eval_ok("max(5, -2, 9, 0)"), 9);
  EXPECT_EQ(eval_ok("max(min(a, 8), 2*b)", {{"a", 20}, {"b", 3}}), 8);
  EXPECT_NE(parse_error("min(1)").find("column 1: min takes at least 2 arguments, got 1"), std::string::npos);
  EXPECT_NE(parse_error("ceil_div(1,2,3)").find("ceil_div takes exactly 2 arguments, got 3"), std::string::npos);
}

TEST(Expr, NamesAndWhitespace) {
  const Env env{{"rows", 3}, {"cols", 5}, {"_k2", 7}};
  EXPECT_EQ(eval_ok("rows*cols", env), 15);
  EXPECT_EQ(eval_ok("  rows \t*\n cols + _k2 ", env), 22);
  EXPECT_EQ(eval_ok("ceil_div ( rows , 2 )", env), 2);
  auto e = Expr::parse("4*rows*cols + max(rows, _k2) - 1");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->names(), (std::set<std::string>{"_k2", "cols", "rows"}));
  EXPECT_EQ(e->text(), "4*rows*cols + max(rows, _k2) - 1");
  EXPECT_EQ(e->eval(env).value(), 66);
  EXPECT_EQ(e->eval({{"rows", 1}, {"cols", 1}, {"_k2", 1}}).value(), 4);
  EXPECT_TRUE(Expr::parse("42")->names().empty());
}

TEST(Expr, ParseErrorsNameTheColumn) {
  EXPECT_EQ(parse_error("rows*"), "\"rows*\": column 6: expected a number, a name or '('");
  EXPECT_EQ(parse_error(""), "\"\": column 1: expected a number, a name or '('");
  EXPECT_EQ(parse_error("rows cols"), "\"rows cols\": column 6: expected an operator or the end of the expression, got 'c'");
  EXPECT_EQ(parse_error("(rows"), "\"(rows\": column 6: expected ')'");
  EXPECT_EQ(parse_error("2 $ 3"), "\"2 $ 3\": column 3: expected an operator or the end of the expression, got '$'");
  EXPECT_EQ(parse_error("*2"), "\"*2\": column 1: expected a number, a name or '(', got '*'");
  EXPECT_EQ(parse_error("min(1 2)"), "\"min(1 2)\": column 7: expected ',' or ')', got '2'");
  EXPECT_EQ(parse_error("12ab"), "\"12ab\": column 3: expected an operator or the end of the expression, got 'a'");
  EXPECT_EQ(parse_error("sqrt(4)"), "\"sqrt(4)\": column 1: unknown function 'sqrt' (known: ceil_div, min, max)");
  EXPECT_NE(parse_error("99999999999999999999").find("column 1: number does not fit"), std::string::npos);
  EXPECT_NE(parse_error(std::string(200, '(') + "1" + std::string(200, ')')).find("nested too deeply"),
            std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 600; ++i) chain += "+1";
  EXPECT_NE(parse_error(chain).find("longer than the limit of 1000"), std::string::npos);
}

TEST(Expr, UnknownName) {
  EXPECT_EQ(eval_error("rows*colz", {{"rows", 1}, {"cols", 2}}),
            "\"rows*colz\": unknown name 'colz' (known: cols, rows)");
  EXPECT_NE(eval_error("n").find("unknown name 'n' (known: none)"), std::string::npos);
}

TEST(Expr, Overflow) {
  const Env env{{"big", k_max}, {"small", k_min}};
  EXPECT_NE(eval_error("big + 1", env).find("overflow in 9223372036854775807 + 1"), std::string::npos);
  EXPECT_NE(eval_error("small - 1", env).find("overflow"), std::string::npos);
  EXPECT_NE(eval_error("big * 2", env).find("overflow"), std::string::npos);
  EXPECT_NE(eval_error("-small", env).find("overflow"), std::string::npos);
  EXPECT_NE(eval_error("small / -1", env).find("overflow"), std::string::npos);
  EXPECT_NE(eval_error("65536*65536*65536*65536").find("overflow"), std::string::npos);
  EXPECT_EQ(eval_ok("big - 1 + 1", env), k_max);
  EXPECT_EQ(eval_ok("-big - 1", env), k_min);
}

TEST(Expr, DivisionByZero) {
  EXPECT_EQ(eval_error("7/0"), "\"7/0\": division by zero in 7 / 0");
  EXPECT_NE(eval_error("7 % (n - 3)", {{"n", 3}}).find("division by zero in 7 % 0"), std::string::npos);
}

int64_t condition_ok(std::string_view text, const Env& env = {}) {
  auto e = Expr::parse_condition(text);
  EXPECT_TRUE(e.has_value()) << text << ": " << (e ? "" : e.error().what());
  if (!e) return -424242;
  auto v = e->eval(env);
  EXPECT_TRUE(v.has_value()) << text << ": " << (v ? "" : v.error().what());
  return v.value_or(-424242);
}

std::string condition_error(std::string_view text) {
  auto e = Expr::parse_condition(text);
  EXPECT_FALSE(e.has_value()) << text << " parsed";
  return e ? "" : e.error().what();
}

TEST(Expr, ConditionsCompareTwoExpressions) {
  const Env env{{"rows", 6}, {"cols", 1024}};
  EXPECT_EQ(condition_ok("cols % 8 == 0", env), 1);
  EXPECT_EQ(condition_ok("cols % 8 != 0", env), 0);
  EXPECT_EQ(condition_ok("rows*cols <= 6144", env), 1);
  EXPECT_EQ(condition_ok("rows*cols < 6144", env), 0);
  EXPECT_EQ(condition_ok("rows > 5", env), 1);
  EXPECT_EQ(condition_ok("rows >= 7", env), 0);
  EXPECT_EQ(condition_ok("-rows<-5", env), 1);
  EXPECT_EQ(condition_ok("min(rows, cols) == ceil_div(12, 2)", env), 1);
  auto e = Expr::parse_condition("rows * cols <= 16777216");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->names(), (std::set<std::string>{"cols", "rows"}));
}

TEST(Expr, ConditionErrors) {
  EXPECT_EQ(condition_error("cols % 8"), "\"cols % 8\": column 9: expected a comparison (==, !=, <, <=, >, >=)");
  EXPECT_NE(condition_error("cols = 8").find("column 6: expected a comparison"), std::string::npos);
  EXPECT_NE(condition_error("1 < cols < 9").find("only one comparison per condition"), std::string::npos);
  EXPECT_NE(condition_error("(cols < 9)").find("expected ')'"), std::string::npos);
  EXPECT_NE(condition_error("cols <").find("expected a number, a name or '('"), std::string::npos);
  // Plain expressions (shapes, rooflines, launch plans) take no comparison.
  EXPECT_NE(parse_error("rows < cols").find("a comparison is not allowed here (only in shape constraints)"),
            std::string::npos);
}

TEST(Expr, DefaultConstructedIsAnError) {
  Expr e;
  EXPECT_FALSE(e.eval({}).has_value());
  EXPECT_TRUE(e.names().empty());
}

}  // namespace
}  // namespace kwb::spec
