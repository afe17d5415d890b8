// SPDX-License-Identifier: Apache-2.0
// The webhook section: each detection event POSTed as JSON.
#include <string>

#include "config/http_url.h"
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

// An http:// or https:// URL; "" turns the output off.
std::string http_url(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  std::string error;
  if (s.empty() || parse_http_url(s, &error)) return "";
  return error;
}

}  // namespace

SectionSpec webhook_spec() {
  return {"webhook",
          "Each debounced detection event (a label appears, changes count, is gone) POSTed as JSON "
          "to a URL; docs/webhook.md shows the body."};
}

void add_webhook_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<WebhookConfig> add{t, &Config::webhook};
  add("url", &WebhookConfig::url, "", {.rule = http_url},
      "Where events are POSTed: http:// or https:// (checked against the system's CA "
      "certificates); empty turns the webhook off.");
  add("timeout_s", &WebhookConfig::timeout_s, 5.0, {.min = 0.1, .max = 60},
      "Seconds to connect, and to send or wait for the answer, before an attempt counts as "
      "failed.");
  add("retries", &WebhookConfig::retries, 3, {.min = 0, .max = 10},
      "Attempts after a failed one (no answer, or a status of 408, 429 or 5xx) before the event is "
      "given up and counted failed.");
  add("backoff_s", &WebhookConfig::backoff_s, 1.0, {.min = 0, .max = 300},
      "Seconds before the first retry, doubling with each further one.");
  add("queue", &WebhookConfig::queue, 100, {.min = 1, .max = 10000},
      "Events waiting to be sent; beyond this the oldest are dropped and counted.");
  add("debounce_s", &WebhookConfig::debounce_s, 2.0, {.min = 0, .max = 600},
      "Seconds a label must go unseen before an event says it is gone (as mqtt.debounce_s).");
}

}  // namespace yolo::config::section_files
