// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/outputs.h"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "daemon/outputs/event_store/event_store_output.h"
#include "daemon/outputs/field_log/field_log_output.h"
#include "daemon/outputs/gpio/gpio_output.h"
#include "daemon/outputs/http/http_output.h"
#include "daemon/outputs/metrics/metrics_output.h"
#include "daemon/outputs/mqtt/mqtt_output.h"
#include "daemon/outputs/state/state_output.h"
#include "daemon/outputs/webhook/webhook_output.h"

namespace yolo::daemon {

namespace {

std::unique_ptr<Publisher> make_http(const OutputContext& c) {
  return std::make_unique<HttpOutput>(c.events,
                                      HttpBackend{.status = c.status,
                                                  .metrics = c.metrics,
                                                  .control = c.call,
                                                  .object_events = &c.object_events,
                                                  .reset_counts = c.reset_counts},
                                      c.state_dir);
}

std::unique_ptr<Publisher> make_gpio(const OutputContext& c) {
  // A press switches precision through the same path as a reload, never waiting: it runs on the
  // GPIO thread.
  return std::make_unique<GpioOutput>(c.events, [post = c.post](std::string_view request) {
    post({ControlRequest::Kind::kPrecision, std::string(request), "the GPIO precision button"});
  });
}

constexpr std::array kOutputs{
    OutputRow{"field-log",
              [](const OutputContext&) -> std::unique_ptr<Publisher> {
                return std::make_unique<FieldLogOutput>();
              }},
    OutputRow{"http", make_http},
    OutputRow{"mqtt",
              [](const OutputContext& c) -> std::unique_ptr<Publisher> {
                return std::make_unique<MqttOutput>(c.events);
              }},
    OutputRow{"gpio", make_gpio},
    OutputRow{"state",
              [](const OutputContext& c) -> std::unique_ptr<Publisher> {
                return std::make_unique<StateOutput>(c.events, c.object_events, c.state_dir);
              }},
    OutputRow{"webhook",
              [](const OutputContext& c) -> std::unique_ptr<Publisher> {
                return std::make_unique<WebhookOutput>(c.events);
              }},
    OutputRow{"event-store",
              [](const OutputContext& c) -> std::unique_ptr<Publisher> {
                return std::make_unique<EventStoreOutput>(c.events, c.state_dir);
              }},
};

}  // namespace

std::span<const OutputRow> output_table() {
  return kOutputs;
}

std::vector<std::unique_ptr<Publisher>> make_outputs(OutputContext context) {
  auto metrics = std::make_unique<MetricsOutput>();
  MetricsOutput& registry = *metrics;
  context.metrics = [&registry] { return registry.render(); };
  std::vector<std::unique_ptr<Publisher>> outputs;
  outputs.push_back(std::move(metrics));
  for (const OutputRow& row : output_table()) {
    try {
      outputs.push_back(row.make(context));
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot make the " + std::string(row.name) + " output: " + e.what());
    }
  }
  std::vector<const Publisher*> all = context.measured;
  for (const auto& output : outputs) all.push_back(output.get());
  registry.collect_from(std::move(all));
  return outputs;
}

}  // namespace yolo::daemon
