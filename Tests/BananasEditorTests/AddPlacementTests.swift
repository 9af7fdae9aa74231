import BananasCore
import BananasEditor
import Testing

/// The add prompt says where a name will go, and why, before it is added (issue 57): the
/// core's placement rule, the same one the add then follows.
@Suite struct AddPlacementTests {
    @Test("typing a name in the add prompt shows its section and why; Enter puts it there and says so")
    func promptShowsWhereANameGoes() {
        var s = Session()
        s.press(.char("a"))
        s.type("tortillas")
        expectScreen(render(s.list, state: s.state, width: 70), """
             bananas                                                  2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
            ▾ Bakery  0/1 checked
              [ ] Sourdough bread
            Add to Produce: tortillas  goes under Bakery (usual for tortillas)
             synced 4s ago  ~/lists/BananaList.json                        ? help
            """)
        s.press(.enter)
        #expect(s.screen(width: 60).contains("Amount for tortillas (Bakery):"), "\(s.screen(width: 60))")
        s.type("8")
        s.press(.enter)
        #expect(s.named("tortillas")?.section == "Bakery" && s.named("tortillas")?.amount == "8")
        #expect(s.state.message?.text.hasPrefix("tortillas added to Bakery (usual for tortillas) (8)") == true, "\(String(describing: s.state.message))")
    }

    @Test("a name the catalogue does not know goes to the prompt's section, and the prompt says so")
    func unknownNameGoesToThePromptsSection() {
        var s = Session()
        s.press(.char("a"))
        s.type("Zorblax")
        #expect(render(s.list, state: s.state, width: 80).text.contains("Add to Produce: Zorblax  goes under Produce (the section you are adding to)"),
                "\(render(s.list, state: s.state, width: 80).text)")
        s.press(.enter, .enter)
        #expect(s.named("Zorblax")?.section == "Produce")
    }
}
