// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { installFetch, sseResponse } from "../test/fetch-mock.ts";
import { ask, renderWidget } from "../test/render-widget.tsx";
import {
  answerEvents,
  GREETING_REPLY,
  OVERVIEW_EVENTS,
  RETRIEVAL_ONLY_MESSAGE,
  ROS2_CONTROL_SOURCE,
  smallTalkEvents,
  THANKS_REPLY,
  XACRO_SOURCE,
} from "../test/sse-fixtures.ts";
import { LOW_CONFIDENCE_MESSAGE } from "./AssistantMessageView.tsx";

/** Opens the panel, asks each question in turn and returns the answers once all are in. */
async function askInTurn(events: string[][], questions: string[]) {
  let next = 0;
  installFetch(() => sseResponse(events[next++] ?? []));
  const { user, store } = renderWidget();
  await user.click(screen.getByRole("button", { name: "Ask the book" }));
  for (const question of questions) {
    await ask(user, question);
    await waitFor(() => expect(store.getState().status).toBe("success"));
  }
  return screen.getAllByRole("article", { name: "Answer" });
}

function expectNoRetrievalSignals(answer: HTMLElement) {
  expect(within(answer).queryByText(/Confidence:/)).not.toBeInTheDocument();
  expect(within(answer).queryByText(LOW_CONFIDENCE_MESSAGE)).not.toBeInTheDocument();
  expect(within(answer).queryByText(RETRIEVAL_ONLY_MESSAGE)).not.toBeInTheDocument();
  expect(within(answer).queryByRole("button", { name: "Helpful answer" })).not.toBeInTheDocument();
  expect(
    within(answer).queryByRole("button", { name: "Unhelpful answer" }),
  ).not.toBeInTheDocument();
}

describe("answers by route", () => {
  it("shows a greeting as a plain reply, and the next question with its confidence and thumbs", async () => {
    const [greeting, answer] = await askInTurn(
      [smallTalkEvents("greeting"), answerEvents()],
      ["hi", "What is a URDF?"],
    );
    if (!greeting || !answer) throw new Error("Expected two answers");

    expect(greeting).toHaveTextContent(GREETING_REPLY);
    expectNoRetrievalSignals(greeting);
    expect(within(greeting).queryByRole("list", { name: "Sources" })).not.toBeInTheDocument();

    expect(within(answer).getByText("Confidence: high")).toBeInTheDocument();
    expect(within(answer).getByRole("button", { name: "Helpful answer" })).toBeInTheDocument();
  });

  it("shows thanks without notices or thumbs whatever the metadata says", async () => {
    const [thanks] = await askInTurn(
      [
        smallTalkEvents("thanks", {
          mode: "retrieval_only",
          fallbackMessage: RETRIEVAL_ONLY_MESSAGE,
          lowConfidence: true,
          confidence: "low",
        }),
      ],
      ["thanks, that helped"],
    );
    if (!thanks) throw new Error("Expected an answer");
    expect(thanks).toHaveTextContent(THANKS_REPLY);
    expectNoRetrievalSignals(thanks);
  });

  it("shows the overview with its source and thumbs, but no confidence", async () => {
    const [overview] = await askInTurn([OVERVIEW_EVENTS], ["What is this book about?"]);
    if (!overview) throw new Error("Expected an answer");
    expect(overview).toHaveTextContent("a short textbook about the software that makes robots");
    const sources = within(overview).getByRole("list", { name: "Sources" });
    expect(within(sources).getAllByRole("link")).toEqual([
      within(sources).getByRole("link", { name: "Robotics Primer" }),
    ]);
    expect(within(overview).queryByText(/Confidence:/)).not.toBeInTheDocument();
    expect(within(overview).getByRole("button", { name: "Helpful answer" })).toBeInTheDocument();
    expect(within(overview).getByRole("button", { name: "Unhelpful answer" })).toBeInTheDocument();
  });

  it("treats an answer without a route, from an older server, as a question", async () => {
    const [answer] = await askInTurn(
      [answerEvents({ route: null, lowConfidence: true, confidence: "low" })],
      ["What is a URDF?"],
    );
    if (!answer) throw new Error("Expected an answer");
    expect(within(answer).getByText("Confidence: low")).toBeInTheDocument();
    expect(within(answer).getByText(LOW_CONFIDENCE_MESSAGE)).toBeInTheDocument();
    expect(within(answer).getByText(RETRIEVAL_ONLY_MESSAGE)).toBeInTheDocument();
    expect(within(answer).getByRole("button", { name: "Helpful answer" })).toBeInTheDocument();
  });
});

describe("sources the answer does not cite", () => {
  it("are listed apart, after the cited ones, keeping their numbers", async () => {
    const [answer] = await askInTurn(
      [
        answerEvents({
          sources: [
            { ...ROS2_CONTROL_SOURCE, cited: false },
            { ...XACRO_SOURCE, citation_number: 2, cited: true },
          ],
        }),
      ],
      ["What is a URDF?"],
    );
    if (!answer) throw new Error("Expected an answer");
    const cited = within(answer).getByRole("list", { name: "Sources" });
    const other = within(answer).getByRole("list", { name: "Also found" });
    expect(within(cited).getAllByRole("listitem")).toHaveLength(1);
    expect(within(cited).getByRole("listitem")).toHaveAttribute("value", "2");
    expect(within(other).getByRole("listitem")).toHaveAttribute("value", "1");
  });

  it("leave one list when the server does not say which it cites", async () => {
    const [answer] = await askInTurn([answerEvents()], ["What is a URDF?"]);
    if (!answer) throw new Error("Expected an answer");
    expect(within(answer).queryByRole("list", { name: "Also found" })).not.toBeInTheDocument();
    expect(
      within(within(answer).getByRole("list", { name: "Sources" })).getAllByRole("listitem"),
    ).toHaveLength(2);
  });
});
