// Word pools the seeder draws titles, descriptions and names from. Small on purpose: real calendars
// repeat themselves ("Sunday Jazz Night" every week), and the search scenario needs a word of
// realistic frequency ("jazz": a few percent of events).

export const TITLE_ADJ = [
  'Sunday', 'Late', 'Open Air', 'Family', 'Summer', 'Winter', 'Community', 'Acoustic', 'Midnight', 'Morning',
  'Charity', 'Neighborhood', 'Spring', 'Autumn', 'Rooftop', 'Riverside', 'Downtown', 'Candlelight', 'Weekend', 'Evening',
]

export const TITLE_NOUN = [
  'Jazz Night', 'Rock Concert', 'Book Club', 'Yoga Class', 'Farmers Market', 'Film Screening', 'Craft Fair', 'Wine Tasting',
  'Comedy Show', 'Poetry Reading', 'Art Walk', 'Food Festival', 'Chess Tournament', 'Dance Party', 'Lecture', 'Workshop',
  'Choir Rehearsal', 'Pub Quiz', 'Startup Meetup', 'Photography Walk', 'Theatre Premiere', 'Kids Storytime', 'Tech Talk',
  'Blues Session', 'Salsa Lessons', 'Cooking Class', 'Garden Tour', 'Charity Run', 'Gallery Opening', 'Opera Gala',
  'Hackathon', 'Flea Market', 'Open Mic', 'Beer Festival', 'Silent Disco', 'Orchestra Concert', 'Science Fair',
  'Trivia Night', 'Vinyl Swap', 'Meditation Circle',
]

export const DESC_A = [
  'Join us for an afternoon of good company.', 'Doors open thirty minutes before the start.',
  'A monthly favourite, back by popular demand.', 'Bring your friends and family along.',
  'Tickets are limited, so book early.', 'Our biggest gathering of the season.',
  'Expect great music and even better food.', 'Suitable for all ages and abilities.',
  'Hosted by local volunteers since 2009.', 'Free parking is available on site.',
  'Meet new people and learn something new.', 'Wheelchair accessible venue with step-free access.',
  'Light refreshments will be served.', 'Registration closes the day before.',
  'Come early to get a good seat.', 'Part of the city arts programme.',
  'No experience needed; everything is provided.', 'An evening to remember under the stars.',
  'Raising funds for the local food bank.', 'Live jazz in the courtyard afterwards.',
]

export const DESC_B = [
  'Please check the weather forecast before you set out.', 'Children under twelve go free with an adult.',
  'The bar stays open until late.', 'Bring a blanket and something to share.',
  'Guest speakers will take questions at the end.', 'Seating is first come, first served.',
  'Dogs on a lead are welcome.', 'All proceeds support community projects.',
  'Local artists will show their latest work.', 'Food trucks will be parked outside.',
  'The programme may change at short notice.', 'Photos will be shared on our website.',
  'Members get priority booking.', 'Recordings will be available online.',
  'Follow the signs from the main entrance.', 'Cash and cards are accepted.',
]

export const EXCERPTS = [
  'A night out for everyone.', 'Back for another season.', 'Limited places available.', 'Free entry before 8pm.',
  'Our most popular event.', 'Something for the whole family.', 'Learn from the experts.', 'Celebrate with us.',
]

export const TIMEZONES = ['Europe/Berlin', 'Europe/London', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo', 'Australia/Sydney']

export const VENUE_A = [
  'Riverside', 'Old Town', 'Harbor', 'Central', 'Grand', 'Royal', 'Union', 'Market', 'North Park', 'Westside',
  'Liberty', 'Victoria', 'Station', 'Hilltop', 'Lakeside', 'Civic', 'Heritage', 'Garden', 'Phoenix', 'Majestic',
]
export const VENUE_B = ['Hall', 'Library', 'Pavilion', 'Theatre', 'Arena', 'Gallery', 'Club', 'Church', 'Brewery', 'Studio', 'Loft', 'Center', 'Cafe', 'Park', 'Museum']
export const STREETS = ['Main St', 'High Street', 'River Road', 'Market Square', 'Elm Avenue', 'Station Road', 'King Street', 'Mill Lane', 'Church Street', 'Park Avenue']

/** City, state, zip prefix, country: aligned by index. */
export const CITIES: [string, string, string, string][] = [
  ['Springfield', 'IL', '627', 'United States'], ['New York', 'NY', '100', 'United States'], ['Chicago', 'IL', '606', 'United States'],
  ['Austin', 'TX', '787', 'United States'], ['Seattle', 'WA', '981', 'United States'], ['Boston', 'MA', '021', 'United States'],
  ['Denver', 'CO', '802', 'United States'], ['Portland', 'OR', '972', 'United States'], ['London', '', 'E1', 'United Kingdom'],
  ['Manchester', '', 'M1', 'United Kingdom'], ['Berlin', '', '101', 'Germany'], ['Munich', '', '803', 'Germany'],
  ['Madrid', '', '280', 'Spain'], ['Barcelona', '', '080', 'Spain'], ['Tokyo', '', '100', 'Japan'], ['Sydney', 'NSW', '200', 'Australia'],
]

export const ORG_A = ['Friends of', 'Society for', 'Collective of', 'Club for', 'Association of', 'Guild of', 'Circle of', 'Network for', 'Alliance of', 'Union of']
export const ORG_B = [
  'Music', 'Arts', 'Film', 'Books', 'Running', 'Gardening', 'Science', 'History', 'Cooking', 'Dance',
  'Photography', 'Chess', 'Theatre', 'Jazz', 'Poetry', 'Cycling', 'Crafts', 'Wine', 'Startups', 'Comedy',
]

/** Category hierarchy: 12 parents with 4 children each (60 categories). */
export const CATEGORIES: [string, string[]][] = [
  ['Music', ['Jazz', 'Rock', 'Classical', 'Folk']],
  ['Arts', ['Painting', 'Sculpture', 'Photography', 'Crafts']],
  ['Theatre', ['Drama', 'Musicals', 'Comedy', 'Opera']],
  ['Film', ['Documentaries', 'Film Festivals', 'Screenings', 'Animation']],
  ['Sports', ['Running', 'Cycling', 'Football', 'Swimming']],
  ['Food & Drink', ['Wine', 'Beer', 'Street Food', 'Cooking']],
  ['Family', ['Kids', 'Parents', 'Seniors', 'Teens']],
  ['Education', ['Lectures', 'Workshops', 'Languages', 'Science']],
  ['Business', ['Networking', 'Startups', 'Conferences', 'Careers']],
  ['Community', ['Volunteering', 'Markets', 'Neighbourhood', 'Charity']],
  ['Wellness', ['Yoga', 'Meditation', 'Fitness', 'Nutrition']],
  ['Outdoors', ['Hiking', 'Gardening', 'Nature', 'Camping']],
]

/** 20 x 15 = 300 tags. */
export const TAG_A = [
  'free', 'outdoor', 'indoor', 'family', 'evening', 'weekend', 'live', 'local', 'accessible', 'online',
  'beginner', 'advanced', 'seasonal', 'charity', 'student', 'senior', 'pet', 'vegan', 'summer', 'winter',
]
export const TAG_B = ['friendly', 'music', 'event', 'fun', 'meetup', 'special', 'classic', 'series', 'session', 'edition', 'night', 'morning', 'day', 'week', 'pass']
