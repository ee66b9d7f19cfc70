/*
 * Tidewater, an encyclopedia of the (imaginary) Wexmoor coast. Harrow Point, Brackwater Bay, the Tidewater Railway
 * and their people are invented for Verdict's demo; the Fresnel lens article keeps to well-known facts.
 * Links are written [[slug|text]].
 */
window.ARTICLES = [
  {
    slug: "harrow-point-lighthouse",
    title: "Harrow Point Lighthouse",
    summary:
      "Harrow Point Lighthouse is a granite lighthouse on the southern tip of the Harrow peninsula, marking the entrance to [[brackwater-bay|Brackwater Bay]] on the Wexmoor coast. First lit in 1871, it is one of the tallest lighthouses in the region and its keepers' cottages now house a small maritime museum.",
    art: "lighthouse",
    infobox: [
      ["Location", "Harrow peninsula, Wexmoor"],
      ["Constructed", "1868–1871"],
      ["First lit", "14 October 1871"],
      ["Designer", "Edmund Carrow"],
      ["Construction", "Granite masonry"],
      ["Tower height", "34 m (112 ft)"],
      ["Focal height", "46 m above high water"],
      ["Range", "19 nautical miles"],
      ["Characteristic", "Two white flashes every 15 s"],
      ["Status", "Active"],
    ],
    sections: [
      {
        h: "Background",
        p: [
          "For most of the eighteenth and nineteenth centuries the approach to Brackwater Bay had a poor reputation among coasting captains. The Harrow peninsula ends in a shelf of low rock, the Teeth, that runs nearly a mile out to sea and is covered at high water. Ships bound for the bay's herring quays had to hold well offshore until the church tower at Brackwater came into view, and in fog or winter darkness many misjudged the turn.",
          "Local records list at least forty wrecks on the Teeth between 1790 and 1860. The loss of the brig Margaret Ellis in January 1859, with eleven of her crew, prompted the Brackwater harbour commissioners to petition for a permanent light. A temporary lantern on a timber frame was put up on the point in 1861, but its oil lamp was too weak to be seen beyond a few miles and it was twice damaged by storms.",
        ],
      },
      {
        h: "Construction",
        p: [
          "The harbour commissioners engaged the engineer Edmund Carrow, who had built breakwaters along the Wexmoor coast, to design a stone tower. Carrow proposed a tapering round tower of dressed granite set on a stepped base cut into the rock, with the lower courses dovetailed together so that the masonry would act as a single mass against the sea.",
          "Work began in the spring of 1868. Granite was quarried at Penmoor, twelve miles inland, and brought down to the coast on the newly opened [[tidewater-railway|Tidewater Railway]], then by barge to a landing stage built below the point. Progress was slow in the first season because the base could only be worked for a few hours around low tide, and a winter gale in 1869 carried away the landing stage and much of the scaffolding.",
          "The tower was completed in the summer of 1871. It stands 34 metres from base to gallery and contains 152 steps arranged in eight flights, with storerooms, an oil room and a watch room on the intermediate floors. Two keepers' cottages, a workshop and a walled garden were built on the level ground behind the tower.",
          "The light was exhibited for the first time on the evening of 14 October 1871. A local newspaper reported that the beam could be seen clearly from the hills above Brackwater, and that a crowd gathered on the quay to watch it come on.",
        ],
      },
      {
        h: "Design and optics",
        p: [
          "The original lantern held a second-order [[fresnel-lens|Fresnel lens]] made in Paris, about 1.4 metres across, with a multi-wick paraffin lamp at its focus. The lens was mounted on a carriage that turned on rollers, driven by a clockwork mechanism that the keepers wound by hand every few hours through the night.",
          "The lens was arranged to give a group of two white flashes every fifteen seconds, a characteristic chosen so that the Harrow light could not be mistaken for the fixed red harbour light at Brackwater or for the single flash of the light at Gull Head further along the coast.",
          "In 1909 the paraffin lamp was replaced by an incandescent oil-vapour burner, which roughly tripled the intensity of the light. The rotating carriage was converted to run in a bath of mercury in 1926, which allowed a much smoother and faster rotation.",
          "A fog signal was added in 1893: at first an explosive charge fired from a jib on the gallery every five minutes, later a compressed-air siren housed in a small engine room at the foot of the tower.",
        ],
      },
      {
        h: "Keepers",
        p: [
          "From 1871 until automation the station was manned by a principal keeper and two assistant keepers, working in watches so that one man was always on duty in the lantern through the night. Their duties included trimming and lighting the lamp at sunset, winding the rotation clock, cleaning the lens and lantern glazing each morning, keeping the station log and reporting ships in difficulty.",
          "The keepers' families lived in the cottages behind the tower. Children walked four miles each way to the school at Brackwater until a lighthouse-service boat began taking them by sea in the 1920s. Supplies came by cart along the peninsula road, which was frequently impassable in winter.",
          "Several keepers served for decades. Thomas Rennick, principal keeper from 1889 to 1921, is remembered for rowing out with his assistant in the storm of November 1903 to rescue four fishermen from an upturned boat on the Teeth, for which both men received a medal from the harbour commissioners. The station logbooks from 1871 to 1984 survive and are held in the county archives.",
          "Life at the station is described in the memoir of Agnes Rennick, the principal keeper's daughter, published in 1958. She recalled the constant smell of paraffin, the whitewashing of the tower every summer, and the birds that flew into the lantern glass on misty autumn nights.",
        ],
      },
      {
        h: "Twentieth century",
        p: [
          "During both world wars the light was dimmed or extinguished except when convoys were expected, and the station was used as a coastwatching post. A concrete observation hut from the Second World War still stands on the cliff edge east of the tower.",
          "The station was connected to mains electricity in 1952. The oil-vapour burner was replaced by a 1,000-watt electric lamp inside the original lens, with a standby generator in the former oil store. The fog siren was replaced by an electric emitter in 1968.",
          "A radio beacon operated from the station between 1937 and 1999, giving ships a bearing on the point in poor visibility.",
        ],
      },
      {
        h: "Automation",
        p: [
          "Like most lighthouses on the coast, Harrow Point was converted to automatic operation in the late twentieth century. Work to install remote monitoring equipment, a lamp changer and a battery standby system began in 1983.",
          "The lighthouse was automated in 1984, and the last keepers left the station on 30 June of that year. Since then the light has been monitored from the coastal operations centre at Gull Head, with an attendant visiting monthly to carry out maintenance.",
          "In 2011 the electric lamp was replaced by a set of LED lanterns mounted inside the original lens, reducing the station's power consumption by about 90 percent. The range of the light was reduced at the same time from 24 to 19 nautical miles, which was judged sufficient for modern navigation.",
        ],
      },
      {
        h: "Restoration and museum",
        p: [
          "The keepers' cottages stood empty for several years after automation. In 1992 a local trust leased them and opened a museum of the lighthouse and the Wexmoor coast, displaying the station logbooks, keepers' uniforms, the original clockwork rotation machine and a collection of photographs of the station and its families.",
          "The tower's exterior was repointed and the lantern glazing replaced in 2004–2006. Guided tours up to the gallery run on summer weekends; visitors must be at least eight years old and able to climb the 152 steps.",
        ],
      },
      {
        h: "In popular culture",
        p: [
          "The lighthouse appears in the 1936 novel The Long Watch by Clara Dunmore, in which a keeper's widow keeps the light burning through a winter storm. It has been used as a filming location for several television dramas, and a painting of it by the marine artist Henry Vale hangs in the Brackwater town hall.",
          "Every October the museum holds a lantern evening on the anniversary of the first lighting, when the gallery is opened after dark.",
        ],
      },
    ],
    seeAlso: ["brackwater-bay", "fresnel-lens", "lighthouse-keeper"],
  },
  {
    slug: "brackwater-bay",
    title: "Brackwater Bay",
    summary:
      "Brackwater Bay is a small harbour town on the Wexmoor coast, at the mouth of the River Brack. It grew as a herring port in the eighteenth century and is today known for its fishing fleet, its painted quayside houses and the nearby [[harrow-point-lighthouse|Harrow Point Lighthouse]].",
    art: "harbour",
    infobox: [
      ["Country", "Wexmoor"],
      ["Region", "South coast"],
      ["Founded", "c. 1764 (harbour charter)"],
      ["Area", "11.6 km²"],
      ["Elevation", "0–84 m"],
      ["Railway", "Tidewater Railway"],
      ["Twin town", "Saint-Aubin-des-Grèves"],
    ],
    sections: [
      {
        h: "Name",
        p: [
          "The town takes its name from the brackish water of the estuary, where the River Brack meets the sea behind a shingle bar. The earliest spelling in the records is Brakewater, in a survey of 1612.",
        ],
      },
      {
        h: "History",
        p: [
          "A handful of fishing cottages stood on the west bank of the estuary by the seventeenth century. The harbour charter of 1764 allowed the building of a stone quay, and the town grew quickly on the herring trade: by 1800 more than sixty boats worked from the harbour and curing houses lined the waterfront.",
          "Shipwrecks on the rocks off the Harrow peninsula were a constant danger to the fleet, and the town's harbour commissioners campaigned for many years for a lighthouse, finally lit at Harrow Point in 1871.",
          "The arrival of the [[tidewater-railway|Tidewater Railway]] in 1866 opened inland markets for fresh fish and brought the first summer visitors. A small promenade and two hotels were built along the east beach in the 1890s.",
          "The herring shoals declined after the First World War and the curing houses closed one by one. The fleet turned to shellfish and mixed fishing, which it still follows today.",
        ],
      },
      {
        h: "Geography",
        p: [
          "The old town climbs the steep west side of the estuary in terraces joined by stepped lanes. Newer housing spreads along the flatter ground to the north and east. The bay is sheltered from the prevailing westerly winds by the Harrow peninsula, which makes it one of the few safe anchorages on this part of the coast.",
          "The shingle bar across the river mouth shifts after winter storms and has to be dredged every few years to keep the channel open.",
        ],
      },
      {
        h: "Economy",
        p: [
          "Fishing, tourism and small-scale boatbuilding are the main industries. A fish market is held on the quay every weekday morning. The town has a lifeboat station, founded in 1867, whose crews have been awarded several medals for rescues off the Harrow peninsula.",
          "Tourism has grown since the 1960s. Visitors come for the harbour, the coastal footpath and the lighthouse museum at Harrow Point.",
        ],
      },
      {
        h: "Demographics",
        p: [
          "The population of the town grew from about 1,200 in 1801 to a peak of 5,060 in 1911, at the height of the fishing trade, and then slowly declined until the 1970s.",
          "At the 2021 census Brackwater Bay had a population of 4,318, living in 2,047 households. About a quarter of the residents were aged 65 or over, a higher proportion than the regional average, reflecting the town's popularity with retired people.",
          "Around one in five homes in the old town are second homes or holiday lets, a figure that has been a matter of local debate.",
        ],
      },
      {
        h: "Culture",
        p: [
          "The Brackwater regatta has been held every August since 1851. The town's harbour festival in June includes a blessing of the boats, a shanty competition and rowing races across the estuary.",
          "The painted quayside houses, in shades of blue, pink and ochre, have made the harbour a favourite subject for artists. A small gallery in the former harbour office shows work by local painters.",
        ],
      },
      {
        h: "Transport",
        p: [
          "Brackwater Bay station is the terminus of the Tidewater Railway from Penmoor, with trains every hour. The coastal road runs along the top of the town, and a passenger ferry crosses the estuary in summer.",
        ],
      },
    ],
    seeAlso: ["harrow-point-lighthouse", "tidewater-railway"],
  },
  {
    slug: "fresnel-lens",
    title: "Fresnel lens",
    summary:
      "A Fresnel lens is a compact lens made of concentric rings of prisms instead of a single thick curved piece of glass. Named after the French physicist Augustin-Jean Fresnel, who developed it for lighthouses in the 1820s, it can gather and direct light far more efficiently than the mirrors it replaced, and lighthouses such as [[harrow-point-lighthouse|Harrow Point]] used it for more than a century.",
    art: "lens",
    infobox: [
      ["Inventor", "Augustin-Jean Fresnel"],
      ["First lighthouse use", "1823, Cordouan (France)"],
      ["Material", "Glass (historic), acrylic (modern)"],
      ["Uses", "Lighthouses, stage lights, projectors, solar collectors"],
    ],
    sections: [
      {
        h: "Principle",
        p: [
          "A conventional lens bends light at its curved surfaces; most of the glass in between only adds weight and absorbs light. A Fresnel lens keeps the curved surfaces but removes the bulk, dividing the lens into a series of thin concentric rings, each with the slope the full lens would have had at that point. The result is much thinner and lighter for the same focal length.",
          "Lighthouse lenses add further rings above and below the central part that work by total internal reflection: light from the lamp enters a prism, reflects from its back face and leaves travelling horizontally. These catadioptric rings capture light that would otherwise escape upward or downward.",
        ],
      },
      {
        h: "History",
        p: [
          "Fresnel presented his design in 1822, and the first lighthouse lens of this kind was installed at the Cordouan lighthouse at the mouth of the Gironde in 1823. Within a few decades Fresnel lenses had been adopted in lighthouses around the world.",
          "Large lenses were assembled from many individually ground glass prisms held in a brass frame. They were made by a small number of specialist workshops, several of them in Paris.",
        ],
      },
      {
        h: "Orders",
        p: [
          "Lighthouse lenses were classified in orders according to their focal distance, the distance from the lamp to the lens. The first-order lens was the largest, used for major coastal lights; the second and third orders were used for smaller coastal lights and large harbours; the fourth to sixth orders were used for harbours, rivers and piers.",
          "A first-order lens stands well over two metres tall. A few even larger hyperradiant lenses were made in the late nineteenth century for the most important landfall lights.",
        ],
      },
      {
        h: "Other uses",
        p: [
          "Flat plastic Fresnel lenses are used in overhead projectors, rear-window lenses on vehicles, magnifying sheets and solar concentrators. In theatre lighting a Fresnel is a spotlight with a soft-edged beam produced by this kind of lens.",
        ],
      },
    ],
    seeAlso: ["harrow-point-lighthouse", "lighthouse-keeper"],
  },
  {
    slug: "tidewater-railway",
    title: "Tidewater Railway",
    summary:
      "The Tidewater Railway is a single-track branch line running 14 miles from Penmoor to [[brackwater-bay|Brackwater Bay]] along the valley of the River Brack. Opened in 1866, it carried fish, granite and holidaymakers and survives today as a community-supported line.",
    art: "train",
    infobox: [
      ["Length", "14 miles (23 km)"],
      ["Opened", "1866"],
      ["Gauge", "Standard"],
      ["Stations", "6"],
      ["Termini", "Penmoor, Brackwater Bay"],
    ],
    sections: [
      {
        h: "History",
        p: [
          "The line was promoted by Brackwater merchants who wanted to send fresh fish to inland markets. It opened in 1866 and quickly became busy with fish traffic going inland and coal coming down to the harbour.",
          "Granite from the Penmoor quarries travelled on the railway to build the [[harrow-point-lighthouse|Harrow Point Lighthouse]] between 1868 and 1871, using a temporary siding at the estuary.",
          "Freight ended in 1965, and the line narrowly escaped closure in the 1970s. A partnership of the local councils and a volunteer society has supported it since 1991.",
        ],
      },
      {
        h: "Route",
        p: [
          "From Penmoor the line follows the wooded valley of the Brack, crossing the river three times on stone viaducts, and runs along the estuary shore for the last two miles into Brackwater Bay. The intermediate stations are Brack Mill, Lowen, Saltings and Estuary Halt.",
        ],
      },
      {
        h: "Services",
        p: ["Trains run every hour in each direction, taking about 35 minutes. In summer some services are worked by a restored steam locomotive."],
      },
    ],
    seeAlso: ["brackwater-bay"],
  },
  {
    slug: "lighthouse-keeper",
    title: "Lighthouse keeper",
    summary:
      "A lighthouse keeper was the person responsible for tending and caring for a lighthouse, particularly its light and lens, in the days before lights were automated. On the Wexmoor coast the last keepers left [[harrow-point-lighthouse|Harrow Point]] in the 1980s.",
    art: "keeper",
    infobox: [
      ["Occupation type", "Maritime"],
      ["Activity sectors", "Navigation, safety at sea"],
      ["Related jobs", "Lightship crew, coastguard"],
    ],
    sections: [
      {
        h: "Duties",
        p: [
          "Keepers lit the lamp at sunset and extinguished it at sunrise, trimmed wicks, refilled fuel, wound the clockwork that turned the lens and kept the lens and lantern glass spotless. They kept a log of the weather and of passing ships and sounded the fog signal in poor visibility.",
        ],
      },
      {
        h: "Life at a station",
        p: [
          "Stations on the mainland often housed keepers' families in cottages beside the tower, while rock stations far out at sea were manned by keepers alone, working weeks on and weeks off. Isolation, storms and the long night watches were part of the job.",
        ],
      },
      {
        h: "Automation",
        p: [
          "Through the twentieth century electric lamps, automatic lamp changers and remote monitoring made resident keepers unnecessary. Most lighthouses on the Wexmoor coast were automated between 1975 and 1990.",
        ],
      },
    ],
    seeAlso: ["harrow-point-lighthouse", "fresnel-lens"],
  },
];

window.ART = {
  lighthouse:
    '<svg viewBox="0 0 120 160"><rect width="120" height="160" fill="#cfe0f2"/><path d="M0 130 Q30 122 60 130 T120 130 V160 H0z" fill="#5a7fb0"/><path d="M40 132 L48 52 H72 L80 132z" fill="#f4f1ea"/><path d="M44 100 H76 L77 112 H43z M46 76 H74 L75 88 H45z" fill="#c24b3f"/><rect x="50" y="36" width="20" height="16" fill="#f7d66b"/><path d="M46 36 L60 24 L74 36z" fill="#333"/><rect x="44" y="50" width="32" height="4" fill="#333"/><path d="M70 42 L120 28 V56z" fill="#fff6c4" opacity=".7"/><path d="M20 132 h20 l2 -6 h-24z" fill="#6d5b4b"/></svg>',
  harbour:
    '<svg viewBox="0 0 120 160"><rect width="120" height="160" fill="#dbe9f4"/><rect y="104" width="120" height="56" fill="#4f7bb0"/><rect x="8" y="64" width="18" height="40" fill="#e3a8a0"/><rect x="26" y="58" width="18" height="46" fill="#9cc3df"/><rect x="44" y="66" width="18" height="38" fill="#e8cd82"/><rect x="62" y="60" width="18" height="44" fill="#f1efe8"/><path d="M8 64 l9 -9 9 9z M26 58 l9 -9 9 9z M44 66 l9 -9 9 9z M62 60 l9 -9 9 9z" fill="#7b4b3a"/><path d="M84 124 h28 l-4 8 h-20z" fill="#c24b3f"/><path d="M98 124 V100 l10 16z" fill="#fff"/></svg>',
  lens: '<svg viewBox="0 0 120 160"><rect width="120" height="160" fill="#eef2f6"/><g fill="none" stroke="#6b8fb8" stroke-width="3"><ellipse cx="60" cy="80" rx="40" ry="56"/><ellipse cx="60" cy="80" rx="30" ry="42"/><ellipse cx="60" cy="80" rx="20" ry="28"/><ellipse cx="60" cy="80" rx="10" ry="14"/></g><circle cx="60" cy="80" r="5" fill="#f3c34a"/></svg>',
  train:
    '<svg viewBox="0 0 120 160"><rect width="120" height="160" fill="#e2ecdc"/><path d="M0 118 H120" stroke="#6d5b4b" stroke-width="4"/><rect x="18" y="78" width="70" height="32" rx="4" fill="#2f6b5c"/><rect x="70" y="64" width="22" height="46" rx="3" fill="#24584b"/><rect x="26" y="64" width="10" height="14" fill="#333"/><circle cx="34" cy="114" r="8" fill="#333"/><circle cx="58" cy="114" r="8" fill="#333"/><circle cx="80" cy="114" r="8" fill="#333"/><circle cx="30" cy="52" r="8" fill="#fff" opacity=".8"/><circle cx="22" cy="40" r="6" fill="#fff" opacity=".6"/></svg>',
  keeper:
    '<svg viewBox="0 0 120 160"><rect width="120" height="160" fill="#f1ebe1"/><circle cx="60" cy="56" r="18" fill="#d9b08c"/><path d="M40 46 h40 v-8 c0-10 -40-10 -40 0z" fill="#22324f"/><path d="M30 140 c0-34 60-34 60 0z" fill="#22324f"/><rect x="52" y="96" width="16" height="4" fill="#c9a43a"/></svg>',
};
