#include <gtest/gtest.h>

#include "core/spec.hpp"

namespace kwb::core {
namespace {

Spec make_spec() {
  Spec s;
  s.op = "demo";
  s.tensors = {{"x", Role::in, {"n"}}, {"acc", Role::inout, {"n"}}, {"y", Role::out, {"n"}}};
  Variant f32;
  f32.name = "f32";
  f32.entry = "kwb_demo_f32";
  Variant bf16;
  bf16.name = "bf16";
  bf16.entry = "kwb_demo_bf16";
  s.variants = {f32, bf16};
  return s;
}

TEST(Spec, FindVariant) {
  const Spec s = make_spec();
  const Variant* v = s.find_variant("bf16");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->entry, "kwb_demo_bf16");
  EXPECT_EQ(v, &s.variants[1]);  // points into the spec, not a copy
  EXPECT_EQ(s.find_variant("f32"), &s.variants[0]);
  EXPECT_EQ(s.find_variant("f16"), nullptr);
  EXPECT_EQ(s.find_variant(""), nullptr);
  EXPECT_EQ(s.find_variant("F32"), nullptr);
}

TEST(Spec, FindTensor) {
  const Spec s = make_spec();
  const TensorSpec* t = s.find_tensor("y");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->role, Role::out);
  EXPECT_EQ(t, &s.tensors[2]);
  EXPECT_EQ(s.find_tensor("acc")->role, Role::inout);
  EXPECT_EQ(s.find_tensor("z"), nullptr);
  EXPECT_EQ(s.find_tensor("x "), nullptr);
  EXPECT_EQ(s.find_tensor("x"), &s.tensors[0]);
}

TEST(Spec, EmptySpecFindsNothing) {
  const Spec s;
  EXPECT_EQ(s.find_variant("f32"), nullptr);
  EXPECT_EQ(s.find_tensor("x"), nullptr);
}

TEST(Spec, RoleNames) {
  EXPECT_EQ(role_name(Role::in), "in");
  EXPECT_EQ(role_name(Role::out), "out");
  EXPECT_EQ(role_name(Role::inout), "inout");
}

}  // namespace
}  // namespace kwb::core
