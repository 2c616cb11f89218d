import { describe, expect, it } from "vitest";
import { redact } from "./redact.ts";

describe("redacting a question before it is logged", () => {
  it.each([
    ["Email me at jane.doe+docs@example.co.uk please", "Email me at [email] please"],
    ["contact: müller@beispiel.de", "contact: [email]"],
    ["Call me on +1 (555) 123-4567 tomorrow", "Call me on [phone] tomorrow"],
    ["my number is 020 7946 0958", "my number is [phone]"],
    ["reach me at +447946095812", "reach me at [phone]"],
    ["ring 555-123-4567", "ring [phone]"],
    ["I paid with 4111 1111 1111 1111 and it failed", "I paid with [card number] and it failed"],
    ["card 5500-0000-0000-0004?", "card [card number]?"],
    [
      "why does OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234 fail",
      "why does OPENAI_API_KEY=[secret] fail",
    ],
    ["api_key: 'abcd1234efgh'", "api_key: '[secret]'"],
    ['{"password": "hunter2!"}', '{"password": "[secret]"}'],
    ["Authorization: Bearer abc.DEF-123_xyz", "Authorization: Bearer [secret]"],
    ["my token ghp_1234567890abcdefghijABCDEFGHIJ is refused", "my token [secret] is refused"],
    ["AWS says AKIAIOSFODNN7EXAMPLE is invalid", "AWS says [secret] is invalid"],
    [
      "decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "decode [secret]",
    ],
    ["key Zx9vQ2mT7pL4kR8wN3bH6cJ1fD5sA0gY", "key [secret]"],
    ["slack xoxb-123456789012-abcdefghij", "slack [secret]"],
  ])("%s", (question, expected) => {
    expect(redact(question)).toBe(expected);
  });

  it.each([
    "How do I install ROS 2 Humble on Ubuntu 22.04?",
    "What changed in version 2.0.1?",
    "Why is 192.168.1.10 unreachable from the robot?",
    "Set publish_rate to 30 Hz and queue size 10",
    "What does makeAutoObservable do with ros2_control_node_parameters?",
    "Is the launch file at src/my_robot_description/launch/display.launch.py?",
    "What happened on 2024-05-01?",
    "A 1234 mm arm with 6 joints and 3000 rpm motors",
    "Use the @example.com domain?",
  ])("leaves %s as it is", (question) => {
    expect(redact(question)).toBe(question);
  });
});
