// SPDX-License-Identifier: Apache-2.0
#pragma once

// Builds small ONNX models in tests with the protobuf classes, and saves them for Engine::load.
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace yolo::test {

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 17) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  ModelBuilder& input(const std::string& name, std::vector<std::int64_t> dims,
                      int type = onnx::TensorProto::FLOAT) {
    describe(model_.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  ModelBuilder& output(const std::string& name) {
    auto* v = model_.mutable_graph()->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    return *this;
  }
  ModelBuilder& floats(const std::string& name, std::vector<std::int64_t> dims,
                       const std::vector<float>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
    return *this;
  }
  // Random values in [-1, 1) from a fixed seed.
  ModelBuilder& random(const std::string& name, std::vector<std::int64_t> dims,
                       std::uint32_t seed) {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    std::vector<float> values(static_cast<std::size_t>(n));
    for (auto& v : values) v = dist(rng);
    return floats(name, dims, values);
  }
  // An initializer of element type `type` (onnx::TensorProto::INT8, ...) from its raw values.
  template <typename T>
  ModelBuilder& raw(const std::string& name, int type, std::vector<std::int64_t> dims,
                    const std::vector<T>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (auto d : dims) t->add_dims(d);
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
    return *this;
  }
  ModelBuilder& ints(const std::string& name, std::vector<std::int64_t> dims,
                     const std::vector<std::int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto v : values) t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void attr(onnx::NodeProto& n, const std::string& key, std::vector<std::int64_t> values) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto v : values) a->add_ints(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& key, std::int64_t value) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  static void attr(onnx::NodeProto& n, const std::string& key, float value) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(value);
  }
  static void attr(onnx::NodeProto& n, const std::string& key, const std::string& value) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }

  onnx::ModelProto& proto() { return model_; }

  // Writes the model under the test temp dir and returns its path. The path holds the process
  // id: CTest runs tests of one executable side by side, and two of them building a model of the
  // same name once read each other's half-written file (an arm64 CI run, 2026-11-27).
  std::filesystem::path save(const std::string& file) const {
    const auto path = std::filesystem::temp_directory_path() /
                      ("yolo_edge_" + std::to_string(::getpid()) + "_" + file);
    std::ofstream out(path, std::ios::binary);
    model_.SerializeToOstream(&out);
    return path;
  }

 private:
  static void describe(onnx::ValueInfoProto* v, const std::string& name,
                       const std::vector<std::int64_t>& dims, int type) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (auto d : dims) {
      // A negative dim becomes symbolic, as in models exported with dynamic axes.
      auto* dim = shape->add_dim();
      if (d < 0)
        dim->set_dim_param(std::to_string(shape->dim_size()).insert(0, "dim"));
      else
        dim->set_dim_value(d);
    }
  }
  onnx::ModelProto model_;
};

}  // namespace yolo::test
